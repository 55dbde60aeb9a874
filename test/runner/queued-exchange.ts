import { RECORD_VERSION, type ExchangeRecord } from '../../src/core/record.js';

/**
 * A `/run` exchange as the generator watch sees it: intended at `intendedAt`, sent at `sentAt`
 * (on time unless given), held `queuedMs` for a connection (none unless given), answered 2 ms after.
 */
export function queuedExchange(o: {
  intendedAt: number;
  sentAt?: number;
  queuedMs?: number;
}): ExchangeRecord {
  const sentAt = o.sentAt ?? o.intendedAt;
  const held = o.queuedMs ?? 0;
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq: 0,
    op: 'run',
    method: 'POST',
    path: '/run',
    intendedAt: o.intendedAt,
    sentAt,
    endAt: sentAt + held + 2,
    status: 200,
    firstByteAt: sentAt + held + 1,
    reqBytes: 0,
    resBytes: 0,
    ...(o.queuedMs === undefined ? {} : { queuedMs: o.queuedMs }),
  };
}
