import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import type { RequestFacts } from '../core/record.js';

const SUBMISSION_KEYS = new Set(['input', 'webhook', 'policy', 's3Config']);
const POLICY_KEYS = new Set(['executionTimeout', 'lowPriority', 'ttl']);

/**
 * Requests we build never carry a field the spec does not name (contracts/queue/schemas.ts is
 * strict for that reason). A full zod parse per request would walk the whole input; checking the
 * keys is enough to catch a caller's mistake. Deliberately odd bodies go through `send()`.
 */
export function assertSubmissionKeys(body: SubmissionBody): void {
  for (const key of Object.keys(body)) {
    if (!SUBMISSION_KEYS.has(key))
      throw new TypeError(`submission body has a field the spec does not name: ${key}`);
  }
  if (typeof body.input !== 'object' || Array.isArray(body.input)) {
    throw new TypeError('submission body needs an object "input"');
  }
  if (body.policy) {
    for (const key of Object.keys(body.policy)) {
      if (!POLICY_KEYS.has(key)) throw new TypeError(`policy has a field the spec does not name: ${key}`);
    }
  }
}

/** What the checks need to know about a submission, read off the body we are about to send. */
export function submissionFacts(base: RequestFacts, body: SubmissionBody): RequestFacts {
  const p = body.policy;
  if (!p && body.webhook === undefined) return base;
  const facts: RequestFacts = { ...base };
  if (p?.ttl !== undefined) facts.ttl = p.ttl;
  if (p?.executionTimeout !== undefined) facts.executionTimeout = p.executionTimeout;
  if (p?.lowPriority !== undefined) facts.lowPriority = p.lowPriority;
  if (body.webhook !== undefined) facts.webhook = body.webhook;
  return facts;
}
