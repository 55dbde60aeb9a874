import { LIMITS } from '../../../contracts/queue/limits.js';
import { intParam } from '../http/params.js';
import { defineFault } from './fault.js';

/** policy.ttl and policy.executionTimeout outside their ranges are clamped into them before validation. */
function clampPolicy(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('policy' in body)) return body;
  const policy = body.policy;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) return body;
  const clamped: Record<string, unknown> = { ...policy };
  for (const [key, range] of [
    ['ttl', LIMITS.ttl],
    ['executionTimeout', LIMITS.executionTimeout],
  ] as const) {
    const v = clamped[key];
    if (typeof v === 'number' && Number.isInteger(v))
      clamped[key] = Math.min(range.max, Math.max(range.min, v));
  }
  return { ...body, policy: clamped };
}

export const paramsUnchecked = defineFault(
  'params-unchecked',
  'out-of-range wait, policy.ttl and policy.executionTimeout are clamped into range and accepted instead of answered 400',
  ['limits.wait', 'limits.ttl', 'limits.execution-timeout'],
  (base) => ({
    waitParam: (query) => intParam(query, 'wait', LIMITS.wait, true),
    submission: (body) => clampPolicy(base.submission(body)),
  }),
);
