/** Constructed /health sequences and jobs with known scaling figures (test/metrics, test/report). */
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';

export const START = 1_700_000_000_000;
export const RUN: RunRecord = {
  v: 1,
  type: 'run',
  runId: 'r',
  scenario: 's',
  target: 'http://x',
  startedAtMs: START,
  ownsEndpoint: true,
};

/** idle, running, initializing (undefined: not sent), inQueue, inProgress, at second t. */
export type Row = [
  t: number,
  idle: number,
  running: number,
  init: number | undefined,
  queue: number,
  busy: number,
];

let seq = 0;
export function health([t, idle, running, init, inQueue, inProgress]: Row, shard?: string): ExchangeRecord {
  const workers = init === undefined ? { idle, running } : { idle, running, initializing: init };
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    op: 'health',
    flow: '_health',
    method: 'GET',
    path: '/health',
    intendedAt: t * 1000,
    sentAt: t * 1000,
    endAt: t * 1000,
    reqBytes: 0,
    resBytes: 0,
    status: 200,
    body: { jobs: { inQueue, inProgress, completed: 0, failed: 0, retried: 0 }, workers },
    ...(shard === undefined ? {} : { shard }),
  };
}

/** A job submitted at `at` s, seen COMPLETED at `doneAt` s having waited `delayMs` in the queue. */
export function job(
  id: string,
  at: number,
  delayMs: number,
  doneAt: number,
  shard?: string,
): ExchangeRecord[] {
  const base = {
    v: 1 as const,
    type: 'exchange' as const,
    method: 'POST',
    reqBytes: 0,
    resBytes: 0,
    status: 200,
    jobId: id,
  };
  const s = shard === undefined ? {} : { shard };
  return [
    {
      ...base,
      ...s,
      seq: ++seq,
      op: 'run',
      flow: 'f',
      path: '/run',
      intendedAt: at * 1000,
      sentAt: at * 1000,
      endAt: at * 1000,
      body: { id, status: 'IN_QUEUE' },
    },
    {
      ...base,
      ...s,
      seq: ++seq,
      op: 'status',
      flow: 'f',
      path: `/status/${id}`,
      intendedAt: doneAt * 1000,
      sentAt: doneAt * 1000,
      endAt: doneAt * 1000,
      body: { id, status: 'COMPLETED', delayTime: delayMs, executionTime: 100 },
    },
  ];
}

/**
 * One warm worker; at t=2 a burst of 4 jobs queues; 3 workers start (initializing 2 s) and are
 * ready at t=4; the jobs run until t=6; the 3 extra workers idle out at t=9.
 */
export const BURST: Row[] = [
  [0, 1, 0, 0, 0, 0],
  [1, 1, 0, 0, 0, 0],
  [2, 0, 1, 3, 3, 1],
  [3, 0, 1, 3, 3, 1],
  [4, 0, 4, 0, 0, 4],
  [5, 0, 4, 0, 0, 4],
  [6, 4, 0, 0, 0, 0],
  [7, 4, 0, 0, 0, 0],
  [8, 4, 0, 0, 0, 0],
  [9, 1, 0, 0, 0, 0],
  [10, 1, 0, 0, 0, 0],
];

export function burstRecords(): JobstormRecord[] {
  return [
    RUN,
    ...BURST.map((r) => health(r)),
    ...job('a', 2, 0, 6),
    ...job('b', 2, 2000, 6),
    ...job('c', 2, 2000, 6),
    ...job('d', 2, 2000, 6),
  ].sort((x, y) => (x.type === 'run' ? -1 : y.type === 'run' ? 1 : x.endAt - y.endAt));
}
