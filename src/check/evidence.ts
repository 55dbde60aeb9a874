import type { ExchangeRecord, WebhookRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';

const BODY_MAX = 600;

/**
 * The request line, status and a trimmed body of the record behind a violation; a status or body
 * it has not is left out, not undefined (evidence.test compares with toStrictEqual).
 */
export function evidenceOf(r: ExchangeRecord | WebhookRecord): Violation['evidence'] {
  const body = r.body === undefined ? undefined : JSON.stringify(r.body);
  const trimmed =
    body && body.length > BODY_MAX ? `${body.slice(0, BODY_MAX)}… (${String(body.length)} chars)` : body;
  if (r.type === 'webhook') {
    return {
      seq: r.seq,
      request: `POST ${r.path} (webhook delivery, answered ${String(r.answered)})`,
      ...(trimmed === undefined ? {} : { body: trimmed }),
    };
  }
  return {
    seq: r.seq,
    request: `${r.method} ${r.path}`,
    ...(r.status === undefined ? {} : { status: r.status }),
    ...(trimmed === undefined ? {} : { body: trimmed }),
  };
}
