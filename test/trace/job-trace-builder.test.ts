import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import { JobTraceBuilder } from '../../src/trace/job-trace-builder.js';

let seq = 0;
function ex(op: ExchangeRecord['op'], sentAt: number, more: Partial<ExchangeRecord> = {}): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: seq++,
    op,
    method: 'POST',
    path: `/${op}`,
    intendedAt: sentAt,
    sentAt,
    endAt: sentAt + 5,
    status: 200,
    reqBytes: 20,
    resBytes: 40,
    flow: 'f',
    step: '1:run',
    ...more,
  };
}

/*
 * Issue 49 item 2, on a saved record stream: what `jobstorm trace` keeps of a run's records, and
 * what it leaves out because a replay makes it again by itself (or it is not a job's traffic).
 */
describe('JobTraceBuilder', () => {
  it('makes one entry a submission, in the order sent, with its calls at their offsets', () => {
    const b = new JobTraceBuilder();
    for (const r of [
      ex('run', 100, { jobId: 'a', reqBytes: 321 }),
      ex('runsync', 50, { jobId: 'b' }),
      ex('status', 250.5, { jobId: 'a', method: 'GET' }),
      ex('status-sync', 60, { jobId: 'b', method: 'GET' }),
      ex('stream', 400, { jobId: 'a', output: { unit: 'tokens', arrivals: [[405, 3]], usageTokens: 3 } }),
      ex('cancel', 300, { jobId: 'a' }),
      ex('retry', 90, { jobId: 'b' }),
    ])
      b.add(r);
    expect(b.entries()).toEqual([
      { at: 50, op: 'runsync', inputBytes: 20, actions: [{ at: 40, op: 'retry' }] },
      {
        at: 100,
        op: 'run',
        inputBytes: 321,
        outputTokens: 3,
        actions: [
          { at: 150.5, op: 'status' },
          { at: 200, op: 'cancel' },
          { at: 300, op: 'stream' },
        ],
      },
    ]);
  });

  it('leaves out the preflight, probes, health, webhooks and a 429’s client retries', () => {
    const b = new JobTraceBuilder();
    b.add(ex('run', 0, { flow: '_preflight', jobId: 'p' }));
    b.add(ex('run', 5, { req: { probe: 'payload.run.inside', expect: 'accept' }, jobId: 'q' }));
    b.add(ex('health', 7, { method: 'GET' }));
    b.add(ex('run', 10, { status: 429 }));
    // The client's second attempt got the job: its calls are the first attempt's job's.
    b.add(ex('run', 210, { attempt: 2, jobId: 'r' }));
    b.add(ex('status', 300, { jobId: 'r', method: 'GET' }));
    b.add(ex('status', 301, { jobId: 'r', method: 'GET', status: 429 }));
    b.add(ex('status', 500, { jobId: 'r', method: 'GET', attempt: 2 }));
    expect(b.entries()).toEqual([{ at: 10, op: 'run', inputBytes: 20, actions: [{ at: 290, op: 'status' }, { at: 291, op: 'status' }] }]);
  });

  it('gives a purge to the last job its flow submitted before it, and counts what it cannot place', () => {
    const b = new JobTraceBuilder();
    b.add(ex('purge-queue', 1, { flow: 'p' }));
    b.add(ex('run', 10, { jobId: 'a', flow: 'p' }));
    b.add(ex('run', 20, { jobId: 'b', flow: 'other' }));
    b.add(ex('run', 30, { jobId: 'c', flow: 'p' }));
    b.add(ex('purge-queue', 25, { flow: 'p' }));
    b.add(ex('purge-queue', 45, { flow: 'p' }));
    b.add(ex('status', 50, { jobId: 'never-submitted', method: 'GET' }));
    const entries = b.entries();
    expect(entries.map((e) => [e.at, e.actions ?? []])).toEqual([
      [10, [{ at: 15, op: 'purge-queue' }]],
      [20, []],
      [30, [{ at: 15, op: 'purge-queue' }]],
    ]);
    expect(b.leftOut).toEqual({ unknownJob: 1, purgeBeforeJobs: 1 });
  });
});
