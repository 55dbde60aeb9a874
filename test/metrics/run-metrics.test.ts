import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import { loadFixtureRecords } from '../report/fixtures/fixture-summary.js';
import { FoldedMetrics } from '../helpers/folded.js';

const RUN: RunRecord = {
  v: 1,
  type: 'run',
  runId: 'r',
  scenario: 's',
  target: 'http://x',
  startedAtMs: 1_000_000,
  ownsEndpoint: true,
};
let seq = 0;
function ex(r: Partial<ExchangeRecord> & Pick<ExchangeRecord, 'op' | 'sentAt' | 'endAt'>): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    method: 'GET',
    path: '/',
    intendedAt: r.sentAt,
    reqBytes: 0,
    resBytes: 0,
    status: 200,
    ...r,
  };
}

function metricsOf(records: readonly JobstormRecord[], warmupMs?: number): RunMetrics {
  const m = new FoldedMetrics(warmupMs === undefined ? {} : { warmupMs });
  for (const r of records) m.add(r);
  return m;
}

describe('RunMetrics', () => {
  it('counts requests, outcomes, jobs and errors of the fixture stream', () => {
    const d = metricsOf(loadFixtureRecords()).toJSON();
    expect(d.operations.status?.byStatus).toEqual({ '200': 182, '404': 1, '500': 1, error: 1 });
    expect(d.operations.run?.byStatus).toEqual({ '200': 60, '400': 1, '429': 6, '503': 1 });
    expect(d.operations.runsync?.outcomes.error?.count).toBe(3);
    expect(d.errors).toEqual({ reset: 3, timeout: 1 });
    expect(d.jobs.byState).toEqual({ COMPLETED: 47, FAILED: 6, CANCELLED: 6, TIMED_OUT: 6 });
    expect(d.jobs).toMatchObject({ submitted: 66, retried: 1, lost: 1, unfinished: 1, untracked: 0 });
    // Every submission ends somewhere: final, lost or still in flight (a retry re-opens a job).
    const finals = Object.values(d.jobs.byState).reduce((a, b) => a + b, 0);
    expect(finals + d.jobs.lost + d.jobs.unfinished).toBe(d.jobs.submitted + d.jobs.retried);
    expect(LatencyHistogram.decode(d.jobs.firstChunk).count).toBe(6);
    expect(d.dropped).toEqual({ total: 2, byFlow: { async: 1, sync: 1 } });
    expect(d.webhooks).toEqual({ received: 6, byAnswer: { '200': 5, '500': 1 } });
    expect(d.series.requests.reduce((a, b) => a + b, 0)).toBe(331);
    expect(d.series.r429.reduce((a, b) => a + b, 0)).toBe(9);
  });

  it('counts a job’s final timings once, however often the final state is seen', () => {
    const m = metricsOf([
      RUN,
      ex({ op: 'run', jobId: 'j', sentAt: 0, endAt: 10, body: { id: 'j', status: 'IN_QUEUE' } }),
      ex({
        op: 'status',
        jobId: 'j',
        sentAt: 500,
        endAt: 510,
        body: { id: 'j', status: 'COMPLETED', delayTime: 100, executionTime: 300 },
      }),
      ex({
        op: 'status',
        jobId: 'j',
        sentAt: 900,
        endAt: 910,
        body: { id: 'j', status: 'COMPLETED', delayTime: 100, executionTime: 300 },
      }),
    ]);
    const d = m.toJSON();
    expect(d.jobs.byState.COMPLETED).toBe(1);
    expect(LatencyHistogram.decode(d.jobs.delayTime).count).toBe(1);
    expect(LatencyHistogram.decode(d.jobs.e2e.COMPLETED).percentileMs(50)).toBeCloseTo(510, 0);
    expect(d.jobs.unfinished).toBe(0);
  });

  it('counts a 404 on an unfinished job as lost, and a 404 on an unknown job not at all', () => {
    const d = metricsOf([
      RUN,
      ex({ op: 'run', jobId: 'a', sentAt: 0, endAt: 5, body: { id: 'a', status: 'IN_QUEUE' } }),
      ex({ op: 'status', jobId: 'a', sentAt: 100, endAt: 105, status: 404 }),
      ex({ op: 'status', jobId: 'zzz', sentAt: 100, endAt: 105, status: 404 }),
    ]).toJSON();
    expect(d.jobs.lost).toBe(1);
  });

  it('merge is order-independent and equals one aggregate over every record', () => {
    const records = loadFixtureRecords();
    const run = records[0];
    if (run?.type !== 'run') throw new Error('fixture starts with its run record');
    // Split by job (jobs never cross shards), as shards would.
    const jobOf = (r: JobstormRecord): string | undefined =>
      r.type === 'exchange'
        ? (r.jobId ?? (r.body as { id?: string } | undefined)?.id)
        : r.type === 'webhook'
          ? r.jobId
          : undefined;
    const part = (r: JobstormRecord): number => {
      const job = jobOf(r);
      return job ? Number(job.slice(-1)) % 3 : r.type === 'run' ? 0 : r.seq % 3;
    };
    const parts = [0, 1, 2].map((k) =>
      metricsOf([run, ...records.filter((r) => r.type !== 'run' && part(r) === k)]),
    );
    const whole = metricsOf(records).toJSON();
    const [a, b, c] = parts.map((p) => p.toJSON());
    if (!a || !b || !c) throw new Error('three parts');
    const abc = RunMetrics.fromJSON(a).merge(RunMetrics.fromJSON(b)).merge(RunMetrics.fromJSON(c)).toJSON();
    const cba = RunMetrics.fromJSON(c).merge(RunMetrics.fromJSON(b)).merge(RunMetrics.fromJSON(a)).toJSON();
    expect(abc).toEqual(whole);
    expect(cba).toEqual(whole);
  });

  it('stalls that overlap (two shards, one frozen target) are one stall, in any merge order', () => {
    const stall = (
      at: number,
      durationMs: number,
      inFlight: number,
      failed?: Record<string, number>,
    ): JobstormRecord => ({
      v: 1,
      type: 'stall',
      seq: ++seq,
      at,
      durationMs,
      inFlight,
      ...(failed ? { failed } : {}),
    });
    // Shards 1 and 2 stall together (3.0–8.3 s and 3.1–8.3 s); shard 3 stalls alone, later.
    const shards = [
      [RUN, stall(3000, 5300, 1, { refused: 3 })],
      [RUN, stall(3100, 5200, 2, { reset: 1, refused: 4 }), stall(12_000, 6000, 4)],
      [RUN, stall(9000, 1000, 5)],
    ].map((r) => metricsOf(r).toJSON());
    const [a, b, c] = shards;
    if (!a || !b || !c) throw new Error('three shards');
    const expected = [
      { atMs: 1_003_000, durationMs: 5300, inFlight: 3, failed: { refused: 7, reset: 1 } },
      { atMs: 1_009_000, durationMs: 1000, inFlight: 5 },
      { atMs: 1_012_000, durationMs: 6000, inFlight: 4 },
    ];
    expect(
      RunMetrics.fromJSON(a).merge(RunMetrics.fromJSON(b)).merge(RunMetrics.fromJSON(c)).toJSON().stalls,
    ).toEqual(expected);
    expect(
      RunMetrics.fromJSON(c).merge(RunMetrics.fromJSON(b)).merge(RunMetrics.fromJSON(a)).toJSON().stalls,
    ).toEqual(expected);
    // One process seeing every stall record, in any order, agrees.
    expect(
      metricsOf([
        RUN,
        stall(12_000, 6000, 4),
        stall(3100, 5200, 2, { reset: 1, refused: 4 }),
        stall(9000, 1000, 5),
        stall(3000, 5300, 1, { refused: 3 }),
      ]).toJSON().stalls,
    ).toEqual(expected);
  });

  it('leaves the warm-up out of every metric but the per-second series, and does not follow its jobs', () => {
    const records: JobstormRecord[] = [
      RUN,
      // In the warm-up: a slow submission, an error, a drop; the job's final poll comes after it.
      ex({ op: 'run', jobId: 'w', sentAt: 100, endAt: 900, body: { id: 'w', status: 'IN_QUEUE' } }),
      ex({
        op: 'status',
        sentAt: 200,
        endAt: 300,
        status: undefined,
        error: { kind: 'reset', message: 'socket hang up' },
      }),
      { v: 1, type: 'dropped', seq: ++seq, intendedAt: 400, flow: 'f' },
      ex({
        op: 'status',
        jobId: 'w',
        sentAt: 2100,
        endAt: 2110,
        body: { id: 'w', status: 'COMPLETED', delayTime: 5, executionTime: 7 },
      }),
      // Measured: one job from submission to its end.
      ex({ op: 'run', jobId: 'm', sentAt: 2000, endAt: 2010, body: { id: 'm', status: 'IN_QUEUE' } }),
      ex({
        op: 'status',
        jobId: 'm',
        sentAt: 2500,
        endAt: 2510,
        body: { id: 'm', status: 'COMPLETED', delayTime: 5, executionTime: 7 },
      }),
    ];
    const d = metricsOf(records, 1000).toJSON();
    expect(d.warmup).toEqual({ ms: 1000, requests: 2, dropped: 1 });
    expect(d.operations.run?.requests).toBe(1);
    expect(d.operations.run?.byStatus).toEqual({ '200': 1 });
    expect(d.operations.status?.requests).toBe(2);
    expect(d.errors).toEqual({});
    expect(d.dropped.total).toBe(0);
    // Job w was submitted in the warm-up: its final poll counts as a request, not as a job.
    expect(d.jobs).toMatchObject({
      submitted: 1,
      byState: { COMPLETED: 1, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
      unfinished: 0,
    });
    // The timeline keeps everything.
    expect(d.series.requests.reduce((a, b) => a + b, 0)).toBe(5);
    expect(d.series.dropped.reduce((a, b) => a + b, 0)).toBe(1);
    // Without a warm-up every record counts.
    const all = metricsOf(records).toJSON();
    expect(all.warmup).toBeUndefined();
    expect(all.operations.run?.requests).toBe(2);
    expect(all.errors).toEqual({ reset: 1 });
    // Shards of one run merge their warm-ups; JSON round trips keep it.
    const merged = RunMetrics.fromJSON(d)
      .merge(RunMetrics.fromJSON(JSON.parse(JSON.stringify(d)) as typeof d))
      .toJSON();
    expect(merged.warmup).toEqual({ ms: 1000, requests: 4, dropped: 2 });
    expect(RunMetrics.fromJSON(d).merge(new FoldedMetrics()).toJSON().warmup).toEqual(d.warmup);
  });

  it('round-trips through JSON unchanged', () => {
    const d = metricsOf(loadFixtureRecords()).toJSON();
    const again = RunMetrics.fromJSON(JSON.parse(JSON.stringify(d)) as typeof d).toJSON();
    expect(again).toEqual(d);
  });

  it('keeps only jobs in flight: a long run of finished jobs holds no per-job state', () => {
    const m = new FoldedMetrics({ maxTrackedJobs: 10 });
    m.add(RUN);
    for (let i = 0; i < 1000; i++) {
      m.add(
        ex({ op: 'run', jobId: `j${i}`, sentAt: i, endAt: i + 1, body: { id: `j${i}`, status: 'IN_QUEUE' } }),
      );
      if (i % 2 === 0)
        m.add(
          ex({ op: 'status', jobId: `j${i}`, sentAt: i + 2, endAt: i + 3, body: { status: 'COMPLETED' } }),
        );
    }
    const d = m.toJSON();
    expect(d.jobs.byState.COMPLETED).toBe(500);
    // 500 never polled: at most 10 are followed, the rest are counted as untracked, never dropped silently.
    expect(d.jobs.unfinished).toBe(10);
    expect(d.jobs.untracked).toBe(490);
  });

  it('times a job’s first stream chunk once per attempt, and forgets the chunk of a job it gave up on', () => {
    const m = new FoldedMetrics({ maxTrackedJobs: 2 });
    m.add(RUN);
    const chunk = { stream: [{ output: 'x' }] };
    m.add(ex({ op: 'run', jobId: 'a', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'stream', jobId: 'a', sentAt: 5, endAt: 10, body: chunk }));
    m.add(ex({ op: 'stream', jobId: 'a', sentAt: 11, endAt: 20, body: chunk }));
    // a's first chunk came 10 ms after its submission; the second poll's chunk is not a first one.
    let first = LatencyHistogram.decode(m.toJSON().jobs.firstChunk);
    expect([first.count, Math.round(first.maxMs)]).toEqual([1, 10]);
    // a fails, is retried: the new attempt's first chunk counts again, from the retry.
    m.add(ex({ op: 'stream', jobId: 'a', sentAt: 21, endAt: 22, body: { status: 'FAILED', stream: [] } }));
    m.add(ex({ op: 'retry', jobId: 'a', sentAt: 30, endAt: 31, body: { id: 'a', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'stream', jobId: 'a', sentAt: 32, endAt: 60, body: chunk }));
    first = LatencyHistogram.decode(m.toJSON().jobs.firstChunk);
    expect([first.count, Math.round(first.maxMs)]).toEqual([2, 30]);
    // b streams a chunk, then is pushed out by the cap (c, d) and submitted again: its chunk state
    // went with it, so the new submission's first chunk is timed afresh.
    m.add(ex({ op: 'run', jobId: 'b', sentAt: 100, endAt: 101, body: { id: 'b', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'stream', jobId: 'b', sentAt: 102, endAt: 103, body: chunk }));
    m.add(ex({ op: 'run', jobId: 'c', sentAt: 104, endAt: 105, body: { id: 'c', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'run', jobId: 'd', sentAt: 106, endAt: 107, body: { id: 'd', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'run', jobId: 'b', sentAt: 200, endAt: 201, body: { id: 'b', status: 'IN_QUEUE' } }));
    m.add(ex({ op: 'stream', jobId: 'b', sentAt: 202, endAt: 240, body: chunk }));
    const d = m.toJSON().jobs;
    first = LatencyHistogram.decode(d.firstChunk);
    expect([first.count, Math.round(first.maxMs)]).toEqual([4, 40]);
    // a, b and c were each pushed out once: counted, never silently lost.
    expect(d.untracked).toBe(3);
  });

  it('spreads a request’s time in flight over the wall-clock seconds it spans', () => {
    const d = metricsOf([
      { ...RUN, startedAtMs: 1_000_500 },
      ex({ op: 'runsync', sentAt: 0, endAt: 2000 }),
    ]).toJSON();
    expect(d.series.startSec).toBe(1000);
    expect(d.series.busyUs).toEqual([500_000, 1_000_000, 500_000]);
    expect(d.series.requests).toEqual([0, 0, 1]);
  });

  it('refuses records before the run record anchors them to the wall clock', () => {
    expect(() => new FoldedMetrics().add(ex({ op: 'run', sentAt: 0, endAt: 1 }))).toThrow(/run record/);
  });
});
