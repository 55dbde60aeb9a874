import { describe, expect, it } from 'vitest';
import type { GeneratorRecord, JobstormRecord, StallRecord } from '../../src/core/record.js';
import type { Violation } from '../../src/core/violation.js';
import { JobFold } from '../../src/fold/job-fold.js';
import type { MetricsData } from '../../src/metrics/metrics-data.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import { ex, runRecord, webhook } from '../check/records.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * RunMetrics' own rules on records laid out by hand (issue 39): the wall-clock span, the live
 * figures, the job counts, drops and webhooks, the stalls and generator stretches in any order,
 * the warm-up's edge, and a fold handed in from outside.
 */

const START = 1_000_000;
const RUN = runRecord({ startedAtMs: START });

function metricsOf(records: readonly JobstormRecord[], warmupMs?: number): RunMetrics {
  const m = new FoldedMetrics(warmupMs === undefined ? {} : { warmupMs });
  for (const r of records) m.add(r);
  return m;
}

let seq = 0;
function stall(
  at: number,
  durationMs: number,
  inFlight: number,
  failed?: Record<string, number>,
): StallRecord {
  return { v: 1, type: 'stall', seq: ++seq, at, durationMs, inFlight, ...(failed ? { failed } : {}) };
}
function generator(at: number, durationMs: number, cpuShare?: number): GeneratorRecord {
  return {
    v: 1,
    type: 'generator',
    seq: ++seq,
    at,
    durationMs,
    busy: 0.9,
    loopDelayP99Ms: 50,
    latenessP99Ms: 80,
    ...(cpuShare === undefined ? {} : { cpuShare }),
  };
}
function dropped(intendedAt: number, flow: string): JobstormRecord {
  return { v: 1, type: 'dropped', seq: ++seq, intendedAt, flow };
}

describe('RunMetrics: the wall-clock span', () => {
  it('runs from the anchor to the latest end of any record', () => {
    const d = metricsOf([
      RUN,
      ex('run', 100, 200, undefined, { took: 50 }),
      webhook(400, 'j', 200, {}),
    ]).toJSON();
    expect([d.wallStartMs, d.wallEndMs]).toEqual([START, START + 400]);
    expect(metricsOf([RUN, dropped(700, 'f')]).toJSON().wallEndMs).toBe(START + 700);
    expect(metricsOf([RUN, stall(100, 900, 1)]).toJSON().wallEndMs).toBe(START + 1000);
    expect(metricsOf([RUN, generator(200, 1000)]).toJSON().wallEndMs).toBe(START + 1200);
    // A record that ended before a later one does not pull the end back.
    const late = metricsOf([RUN, ex('run', 900, 200), ex('run', 100, 200)]).toJSON();
    expect(late.wallEndMs).toBe(START + 905);
  });

  it('is null before any record, and an anchor given up front starts it', () => {
    const none = new FoldedMetrics().toJSON();
    expect([none.wallStartMs, none.wallEndMs]).toEqual([null, null]);
    const given = new FoldedMetrics({ startedAtMs: START });
    given.add(ex('run', 10, 200));
    expect([given.toJSON().wallStartMs, given.toJSON().wallEndMs]).toEqual([START, START + 15]);
  });

  it('merges as the earliest start and the latest end, a side with none taking the other’s', () => {
    const early = metricsOf([runRecord({ startedAtMs: 500 }), ex('run', 0, 200)]);
    const late = metricsOf([RUN, ex('run', 0, 200)]);
    const a = RunMetrics.fromJSON(late.toJSON()).merge(RunMetrics.fromJSON(early.toJSON())).toJSON();
    expect([a.wallStartMs, a.wallEndMs]).toEqual([500, START + 5]);
    const b = RunMetrics.fromJSON(early.toJSON()).merge(RunMetrics.fromJSON(late.toJSON())).toJSON();
    expect([b.wallStartMs, b.wallEndMs]).toEqual([500, START + 5]);
    const empty = new FoldedMetrics().merge(RunMetrics.fromJSON(late.toJSON())).toJSON();
    expect([empty.wallStartMs, empty.wallEndMs]).toEqual([START, START + 5]);
    const intoEmpty = RunMetrics.fromJSON(late.toJSON()).merge(new FoldedMetrics()).toJSON();
    expect([intoEmpty.wallStartMs, intoEmpty.wallEndMs]).toEqual([START, START + 5]);
  });

  it('anchors the records after each run record to it (shards fed to one aggregate)', () => {
    const d = metricsOf([
      runRecord({ startedAtMs: 5000 }),
      ex('run', 0, 200),
      runRecord({ startedAtMs: 2000 }),
      ex('run', 0, 200),
    ]).toJSON();
    expect([d.wallStartMs, d.wallEndMs]).toEqual([2000, 5005]);
    expect(d.series.startSec).toBe(2);
    expect(d.series.requests).toEqual([1, 0, 0, 1]);
  });

  it('keeps a span before the epoch as it is (a test clock anchored below 0), merged or not', () => {
    const m = metricsOf([runRecord({ startedAtMs: -5000 }), ex('run', 0, 200)]);
    const d = m.toJSON();
    expect([d.wallStartMs, d.wallEndMs]).toEqual([-5000, -4995]);
    const a = RunMetrics.fromJSON(d).merge(new FoldedMetrics()).toJSON();
    expect([a.wallStartMs, a.wallEndMs]).toEqual([-5000, -4995]);
    const b = new FoldedMetrics().merge(RunMetrics.fromJSON(d)).toJSON();
    expect([b.wallStartMs, b.wallEndMs]).toEqual([-5000, -4995]);
  });

  it('ends at the last record of the warm-up when nothing came after it', () => {
    const d = metricsOf(
      [RUN, ex('run', 100, 200, undefined, { took: 300 }), dropped(200, 'f')],
      1000,
    ).toJSON();
    expect(d.wallEndMs).toBe(START + 400);
    expect(metricsOf([RUN, dropped(700, 'f')], 1000).toJSON().wallEndMs).toBe(START + 700);
  });

  it('reads a summary’s start as the anchor of violations added later', () => {
    const v: Violation = { id: 'a.b', severity: 'error', at: 10, message: 'm', evidence: {} };
    const m = RunMetrics.fromJSON(metricsOf([RUN, ex('run', 0, 200)]).toJSON());
    m.addViolation(v);
    expect(m.toJSON().violations[0]?.examples[0]?.anchorMs).toBe(START);
    const bare = new FoldedMetrics();
    bare.addViolation(v);
    expect(bare.toJSON().violations[0]?.examples[0]?.anchorMs).toBe(0);
    expect(bare.toJSON().violations[0]?.count).toBe(1);
  });
});

describe('RunMetrics: live figures and counts', () => {
  it('give the p99 of every operation and outcome, and the requests failed with a 5xx or no answer', () => {
    const m = new FoldedMetrics({ startedAtMs: START });
    expect(m.liveFigures()).toEqual({ p99Ms: undefined, failed: 0 });
    for (let i = 0; i < 99; i++) m.add(ex('status', i, 200, undefined, { took: 10 }));
    m.add(ex('run', 0, 404, undefined, { took: 1000 }));
    m.add(ex('run', 0, 429));
    m.add(ex('run', 0, 503));
    m.add(ex('run', 0, 500));
    m.add(ex('run', 0, undefined, undefined, { error: { kind: 'reset' } }));
    const live = m.liveFigures();
    expect(live.failed).toBe(3);
    // 104 requests: the 103rd fastest is a 10 ms one, the slowest the 1 s 404.
    expect(live.p99Ms).toBeCloseTo(10, 1);
    m.add(ex('run', 0, 200, undefined, { took: 1000 }));
    expect(m.liveFigures().p99Ms).toBeGreaterThan(900);
  });

  it('shows its per-second series live, as the summary will write it', () => {
    const m = metricsOf([
      RUN,
      ex('run', 0, 200, { id: 'a', status: 'IN_QUEUE' }),
      ex('status', 1500, 200, { id: 'a', status: 'FAILED' }, { jobId: 'a' }),
      ex('status', 1600, 200, { id: 'x', status: 'RUNNING' }, { jobId: 'x' }),
    ]);
    const source = m.secondSource();
    expect(source.span()).toEqual({ first: 1000, last: 1001 });
    expect(source.second(1000)?.submitted).toBe(1);
    expect(source.second(1001)?.finals).toEqual({ COMPLETED: 0, FAILED: 1, CANCELLED: 0, TIMED_OUT: 0 });
    expect(source.second(1001)?.ops.get('status')?.requests).toBe(2);
  });

  it('count jobs as the summary does, a copy each time', () => {
    const m = metricsOf([
      RUN,
      ex('run', 0, 200, { id: 'a', status: 'IN_QUEUE' }),
      ex('run', 0, 200, { id: 'b', status: 'IN_QUEUE' }),
      ex('status', 10, 200, { id: 'a', status: 'COMPLETED' }, { jobId: 'a' }),
      ex('status', 10, 404, undefined, { jobId: 'b' }),
      ex('retry', 20, 200, { id: 'a', status: 'IN_QUEUE' }, { jobId: 'a' }),
    ]);
    const counts = m.jobCounts();
    expect(counts).toEqual({
      submitted: 2,
      retried: 1,
      lost: 1,
      unfinished: 1,
      untracked: 0,
      byState: { COMPLETED: 1, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
    });
    counts.byState.COMPLETED = 99;
    expect(m.jobCounts().byState.COMPLETED).toBe(1);
    expect(m.toJSON().series.submitted).toEqual([2]);
    expect(m.toJSON().series.finals.COMPLETED).toEqual([1]);
  });

  it('counts drops by flow and webhooks by our answer, keys sorted', () => {
    const d = metricsOf([
      RUN,
      dropped(10, 'sync'),
      dropped(20, 'async'),
      dropped(30, 'sync'),
      webhook(5, 'j', 500, {}),
      webhook(6, 'j', 200, {}),
      webhook(7, 'k', 200, {}),
    ]).toJSON();
    expect(d.dropped).toEqual({ total: 3, byFlow: { async: 1, sync: 2 } });
    expect(Object.keys(d.dropped.byFlow)).toEqual(['async', 'sync']);
    expect(d.webhooks).toEqual({ received: 3, byAnswer: { '200': 2, '500': 1 } });
    expect(d.series.dropped).toEqual([3]);
    const merged = RunMetrics.fromJSON(d).merge(RunMetrics.fromJSON(d)).toJSON();
    expect(merged.dropped).toEqual({ total: 6, byFlow: { async: 2, sync: 4 } });
    expect(merged.webhooks).toEqual({ received: 6, byAnswer: { '200': 4, '500': 2 } });
  });

  it('keeps transport errors by kind, and the streamed answers only when there were some', () => {
    const d = metricsOf([
      RUN,
      ex('run', 0, undefined, undefined, { error: { kind: 'timeout' } }),
      ex('openai', 0, 200, undefined, {
        req: { stream: true },
        sse: { events: 3, tokens: 2, badEvents: 0, done: true, afterDone: 0 },
        output: {
          unit: 'chunks',
          arrivals: [
            [2, 1],
            [4, 1],
          ],
        },
      }),
      // Asked to stream, streamed nothing: judged for goodput, no timings.
      ex('openai', 0, 200, undefined, {
        req: { stream: true },
        sse: { events: 1, tokens: 0, badEvents: 0, done: true, afterDone: 0 },
      }),
    ]).toJSON();
    expect(d.errors).toEqual({ timeout: 1 });
    expect(d.tokens).toMatchObject({
      judged: 2,
      groups: [{ path: 'openai', counted: 'chunks', answers: 1, outputTokens: 2 }],
    });
    // An answer that was not asked to stream is no streamed answer.
    const none = metricsOf([RUN, ex('openai', 0, 200)]).toJSON();
    expect(none).not.toHaveProperty('tokens');
    const merged = RunMetrics.fromJSON(d).merge(RunMetrics.fromJSON(none)).toJSON();
    expect(merged.tokens).toMatchObject({ judged: 2, groups: [{ answers: 1, outputTokens: 2 }] });
    expect(merged.errors).toEqual({ timeout: 1 });
  });

  it('lists operations in name order', () => {
    const d = metricsOf([RUN, ex('status', 0, 200), ex('cancel', 0, 200), ex('run', 0, 200)]).toJSON();
    expect(Object.keys(d.operations)).toEqual(['cancel', 'run', 'status']);
  });

  it('carries the scaling data only when there is some', () => {
    expect(metricsOf([RUN, ex('status', 0, 200)]).toJSON()).not.toHaveProperty('scaling');
    const d = metricsOf([
      RUN,
      ex('health', 0, 200, { workers: { idle: 1, running: 0 }, jobs: { inQueue: 0, inProgress: 0 } }),
    ]).toJSON();
    expect(d.scaling?.asked).toBe(1);
    expect(RunMetrics.fromJSON(d).toJSON().scaling).toEqual(d.scaling);
    const priced = new FoldedMetrics({ startedAtMs: START, price: { pricePerWorkerSecond: 2 } });
    priced.add(ex('health', 0, 500));
    expect(priced.toJSON().scaling).toMatchObject({ asked: 1, pricePerWorkerSecond: 2 });
  });
});

describe('RunMetrics: stalls and generator stretches', () => {
  it('joins a stall that starts exactly where another ends, and keeps one a moment later apart', () => {
    const touching = metricsOf([RUN, stall(1000, 500, 1), stall(1500, 500, 2)]).toJSON().stalls;
    expect(touching).toEqual([{ atMs: START + 1000, durationMs: 1000, inFlight: 3 }]);
    const apart = metricsOf([RUN, stall(1000, 500, 1), stall(1501, 500, 2)]).toJSON().stalls;
    expect(apart?.map((s) => s.atMs - START)).toEqual([1000, 1501]);
  });

  it('keeps a stall’s end when one inside it ends earlier, and takes the longer first on a tie', () => {
    const inside = metricsOf([RUN, stall(1000, 2000, 1), stall(1500, 100, 2)]).toJSON().stalls;
    expect(inside).toEqual([{ atMs: START + 1000, durationMs: 2000, inFlight: 3 }]);
    const tie = metricsOf([RUN, stall(1000, 100, 1, { reset: 1 }), stall(1000, 300, 2)]).toJSON().stalls;
    expect(tie).toEqual([{ atMs: START + 1000, durationMs: 300, inFlight: 3, failed: { reset: 1 } }]);
  });

  it('sorts the failed kinds of a stall, alone or joined', () => {
    const alone = metricsOf([RUN, stall(0, 10, 1, { timeout: 1, refused: 2 })]).toJSON().stalls;
    expect(Object.keys(alone?.[0]?.failed ?? {})).toEqual(['refused', 'timeout']);
    const joined = metricsOf([RUN, stall(0, 10, 1), stall(5, 10, 1, { timeout: 1, refused: 2 })]).toJSON()
      .stalls;
    expect(joined).toEqual([
      { atMs: START, durationMs: 15, inFlight: 2, failed: { refused: 2, timeout: 1 } },
    ]);
    expect(Object.keys(joined?.[0]?.failed ?? {})).toEqual(['refused', 'timeout']);
  });

  it('lists generator stretches by start, the longer first on a tie, with the CPU share when measured', () => {
    const d = metricsOf([
      RUN,
      generator(3000, 100),
      generator(1000, 100, 0.4),
      generator(1000, 500),
    ]).toJSON();
    expect(d.generatorLimited).toEqual([
      { atMs: START + 1000, durationMs: 500, busy: 0.9, loopDelayP99Ms: 50, latenessP99Ms: 80 },
      {
        atMs: START + 1000,
        durationMs: 100,
        busy: 0.9,
        loopDelayP99Ms: 50,
        latenessP99Ms: 80,
        cpuShare: 0.4,
      },
      { atMs: START + 3000, durationMs: 100, busy: 0.9, loopDelayP99Ms: 50, latenessP99Ms: 80 },
    ]);
    const other = metricsOf([RUN, generator(2000, 100)]).toJSON();
    const merged = RunMetrics.fromJSON(other).merge(RunMetrics.fromJSON(d)).toJSON();
    expect(merged.generatorLimited?.map((g) => g.atMs - START)).toEqual([1000, 1000, 2000, 3000]);
    expect(RunMetrics.fromJSON(d).toJSON()).toEqual(d);
    expect(d.generatorLimited?.[0]).not.toHaveProperty('cpuShare');
  });

  it('leaves both lists out when there were none', () => {
    const d = metricsOf([RUN, ex('run', 0, 200)]).toJSON();
    expect(d).not.toHaveProperty('stalls');
    expect(d).not.toHaveProperty('generatorLimited');
  });
});

describe('RunMetrics: the warm-up', () => {
  it('ends exactly at its length: a request intended then is measured', () => {
    const d = metricsOf(
      [RUN, ex('run', 999, 200), ex('run', 1000, 200), dropped(999, 'f'), dropped(1000, 'f')],
      1000,
    ).toJSON();
    expect(d.warmup).toEqual({ ms: 1000, requests: 1, dropped: 1 });
    expect(d.operations.run?.requests).toBe(1);
    expect(d.dropped.total).toBe(1);
    // Both answers came in second 1001; the drops fall in the seconds they were intended in.
    expect(d.series.requests).toEqual([0, 2]);
    expect(d.series.dropped).toEqual([1, 1]);
  });

  it('is none when zero, and the longest of two merged', () => {
    expect(metricsOf([RUN, ex('run', 0, 200)], 0).toJSON()).not.toHaveProperty('warmup');
    const short = metricsOf([RUN, ex('run', 0, 200)], 500).toJSON();
    const long = metricsOf([RUN, ex('run', 0, 200), ex('run', 800, 200)], 1000).toJSON();
    const a = RunMetrics.fromJSON(short).merge(RunMetrics.fromJSON(long)).toJSON();
    const b = RunMetrics.fromJSON(long).merge(RunMetrics.fromJSON(short)).toJSON();
    expect(a.warmup).toEqual({ ms: 1000, requests: 3, dropped: 0 });
    expect(b.warmup).toEqual(a.warmup);
    expect(new FoldedMetrics().merge(RunMetrics.fromJSON(short)).toJSON().warmup).toEqual(short.warmup);
  });

  it('takes a job fold handed in only with the same warm-up', () => {
    const fold = new JobFold({ warmupMs: 1000 });
    const m = new RunMetrics({ warmupMs: 1000, startedAtMs: START });
    const r = ex('run', 2000, 200, { id: 'a', status: 'IN_QUEUE' });
    m.add(r, fold.add(r));
    expect(m.jobCounts().submitted).toBe(1);
    const other = new JobFold({ warmupMs: 500 });
    expect(() => m.add(r, other.add(r))).toThrow(/\(500 ms\) is not the metrics' \(1000 ms\)/);
    const plain = new RunMetrics({ startedAtMs: START });
    expect(() => plain.add(r, fold.add(r))).toThrow(/\(1000 ms\) is not the metrics' \(0 ms\)/);
    plain.add(r, new JobFold().add(r));
    expect(plain.jobCounts().submitted).toBe(1);
  });

  it('counts no job opened in it, but its polls as requests of the series', () => {
    const d = metricsOf(
      [
        RUN,
        ex('run', 100, 200, { id: 'w', status: 'IN_QUEUE' }),
        ex('status', 2000, 200, { id: 'w', status: 'COMPLETED' }, { jobId: 'w' }),
      ],
      1000,
    ).toJSON();
    expect(d.jobs.submitted).toBe(0);
    expect(d.jobs.byState.COMPLETED).toBe(0);
    expect(d.series.submitted).toEqual([0, 0, 0]);
    expect(d.series.finals.COMPLETED).toEqual([0, 0, 0]);
    expect(d.series.requests).toEqual([1, 0, 1]);
  });
});

describe('RunMetrics: a summary read back', () => {
  it('keeps every part through fromJSON, and merges as the original', () => {
    const records: JobstormRecord[] = [
      RUN,
      ex('run', 5, 200),
      ex('run', 20, 200, { id: 'a', status: 'IN_QUEUE' }),
      ex('status', 50, 200, { id: 'a', status: 'FAILED' }, { jobId: 'a' }),
      ex('run', 60, undefined, undefined, { error: { kind: 'reset' } }),
      dropped(70, 'f'),
      webhook(80, 'a', 200, {}),
      stall(90, 10, 1),
      generator(100, 50),
    ];
    const d: MetricsData = metricsOf(records, 10).toJSON();
    const back = RunMetrics.fromJSON(JSON.parse(JSON.stringify(d)) as MetricsData);
    expect(back.toJSON()).toEqual(d);
    const twice = RunMetrics.fromJSON(d).merge(back).toJSON();
    // Per copy: two measured runs (the one intended in the warm-up is not one), a failed job.
    expect(twice.operations.run?.requests).toBe(4);
    expect(twice.jobs.byState.FAILED).toBe(2);
    expect(twice.errors).toEqual({ reset: 2 });
    expect(twice.warmup).toEqual({ ms: 10, requests: 2, dropped: 0 });
    expect(twice.stalls).toEqual([{ atMs: START + 90, durationMs: 10, inFlight: 2 }]);
    expect(twice.generatorLimited).toHaveLength(2);
    // A summary without a start gives later records no anchor.
    const empty = RunMetrics.fromJSON(new FoldedMetrics().toJSON());
    expect(() => empty.add(ex('run', 0, 200), new JobFold().add(ex('run', 0, 200)))).toThrow(/run record/);
  });
});
