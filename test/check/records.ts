import {
  RECORD_VERSION,
  type ExchangeRecord,
  type JobstormRecord,
  type RunRecord,
  type WebhookRecord,
} from '../../src/core/record.js';
import type { Operation } from '../../src/core/operation.js';

/** Builders for saved record streams: checks are tested on records, not on a live target. */
export function runRecord(extra: Partial<RunRecord> = {}): RunRecord {
  return {
    v: RECORD_VERSION,
    type: 'run',
    runId: 't',
    scenario: 't',
    target: 'http://127.0.0.1:9/v2/ep',
    startedAtMs: 1_700_000_000_000,
    ownsEndpoint: true,
    requestsPerWorker: 10,
    ...extra,
  };
}

let seq = 0;

/** An exchange sent at `at`; `took` is how long it took (default 5 ms). */
export function ex(
  op: Operation,
  at: number,
  status: number | undefined,
  body?: unknown,
  extra: Partial<ExchangeRecord> & { took?: number } = {},
): ExchangeRecord {
  const { took = 5, ...rest } = extra;
  const methods: Partial<Record<Operation, string>> = {
    status: 'GET',
    'status-sync': 'GET',
    stream: 'GET',
    health: 'GET',
  };
  return {
    v: RECORD_VERSION,
    type: 'exchange',
    seq: ++seq,
    op,
    method: methods[op] ?? 'POST',
    path: `/${op}`,
    intendedAt: at,
    sentAt: at,
    endAt: at + took,
    ...(status === undefined ? {} : { status }),
    reqBytes: 10,
    resBytes: 10,
    ...(body === undefined ? {} : { body }),
    ...rest,
  };
}

export function webhook(at: number, jobId: string, answered: number, body: unknown): WebhookRecord {
  return {
    v: RECORD_VERSION,
    type: 'webhook',
    seq: ++seq,
    at,
    jobId,
    path: '/webhook',
    answered,
    bytes: 100,
    body,
  };
}

export const job = (
  id: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({ id, status, ...extra });

export function sortByEnd(records: JobstormRecord[]): JobstormRecord[] {
  return [...records].sort((a, b) => end(a) - end(b));
}

function end(r: JobstormRecord): number {
  return r.type === 'exchange' ? r.endAt : r.type === 'webhook' ? r.at : 0;
}
