import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/compare/random.js';
import { samplerFor, valuesNeeded, type Sampler } from '../../src/compare/samplers.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';
import type {
  OperationSummary,
  OutcomeSummary,
  Summary,
  TimingSummary,
  TokensSummary,
} from '../../src/report/summary.js';
import { parseThresholds, type Threshold } from '../../src/report/threshold.js';
import { BASELINE_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * samplers.ts on hand-laid runs whose every request is known, so each draw can be computed here
 * from the values alone: which sampler a threshold gets, and what each sampler draws for a seed.
 * The expected draws replay the sampler's documented use of the generator (a window picked with
 * `below(n)` n times, then one normal for a run shift; a rank's normal, then one for the job
 * noise; one normal for a share), so a change to a sampler's arithmetic or to the draws it takes
 * shows as another sequence. Every run is built inside its test: Stryker counts coverage per test,
 * and a run built at the top level would cover none.
 */
const B = fixture(BASELINE_FILE);

function metric(expression: string): Threshold {
  const [t] = parseThresholds([{ expression: `${expression} >= 0`, where: 'test' }]);
  if (!t) throw new Error(expression);
  return { ...t, expression };
}

const methodOf = (s: Summary, e: string, jobNoise = 0): string | undefined =>
  samplerFor(s, metric(e), jobNoise)?.method;

function samplerOf(s: Summary, e: string, jobNoise = 0): Sampler {
  const sampler = samplerFor(s, metric(e), jobNoise);
  if (!sampler) throw new Error(`no sampler for ${e}`);
  return sampler;
}

function drawn(sampler: Sampler, n: number, seed: number): (number | null)[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: n }, () => sampler.draw(rng));
}

/** The value a per-second histogram keeps for `ms`: the top of its bucket. */
function sparse(ms: number): number {
  const h = new SparseHistogram();
  h.recordMs(ms);
  return h.percentileMs(100);
}

function sparseEncoded(values: readonly number[]): string {
  const h = new SparseHistogram();
  for (const v of values) h.recordMs(v);
  return h.encode();
}

function hdrEncoded(values: readonly number[]): string {
  const h = LatencyHistogram.create();
  for (const v of values) h.recordMs(v);
  return h.encode();
}

const repeat = (value: number, n: number): number[] => Array.from({ length: n }, () => value);

function template(): OperationSummary {
  const op = B.operations.run;
  if (!op) throw new Error('the fixture has no run operation');
  return op;
}

function opSummary(requests: number, outcomes: OperationSummary['outcomes'], count429 = 0): OperationSummary {
  return { ...template(), requests, count429, outcomes };
}

/** An outcome of `count` requests, with this run-wide latency histogram (none by default). */
function outcome(count: number, latency = ''): OutcomeSummary {
  return { count, intended: latency, sent: latency, latency: template().latency };
}

/**
 * A run of whole seconds (no warm-up, measured for exactly its seconds) whose operations answered
 * 2xx with these latencies (ms), second by second: `ops.status[1]` is what status took in second 1.
 */
function run(ops: Record<string, number[][]>): Summary {
  const x = structuredClone(B);
  const length = Math.max(...Object.values(ops).map((seconds) => seconds.length));
  x.run.durationMs = length * 1000;
  x.series.length = length;
  x.series.requests = Array.from({ length }, (_, i) =>
    Object.values(ops).reduce((n, seconds) => n + (seconds[i]?.length ?? 0), 0),
  );
  x.series.r429 = x.series.requests.map(() => 0);
  x.series.ops = {};
  x.operations = {};
  for (const [op, seconds] of Object.entries(ops)) {
    const all = seconds.flat();
    x.series.ops[op] = {
      requests: seconds.map((values) => values.length),
      latency: seconds.map(sparseEncoded),
      p50: [],
      p99: [],
    };
    x.operations[op] = opSummary(all.length, { '2xx': outcome(all.length, hdrEncoded(all)) });
  }
  return x;
}

function timing(values: readonly number[]): TimingSummary {
  const template = B.jobs.executionTime;
  return { percentiles: template.percentiles, histogram: hdrEncoded(values) };
}

/** `run` with these job timings: executionTime, and end to end for FAILED jobs. */
function withJobs(s: Summary, executionTime: readonly number[], failedE2e: readonly number[] = []): Summary {
  const x = structuredClone(s);
  x.jobs.executionTime = timing(executionTime);
  x.jobs.e2e.FAILED = timing(failedE2e);
  return x;
}

/** One group of streamed answers (OpenAI path, counted in tokens) with these TTFTs, and goodput. */
function withTokens(s: Summary, ttft: readonly number[], goodput: TokensSummary['goodput']): Summary {
  const empty = timing([]);
  const tokens: TokensSummary = {
    definition: 'jobstorm',
    objectives: { ttftMs: 500 },
    groups: [
      {
        path: 'openai',
        counted: 'tokens',
        answers: ttft.length,
        outputTokens: 10 * ttft.length,
        throughput: null,
        ttft: timing(ttft),
        itl: empty,
        tpot: empty,
        e2e: empty,
        perSecond: empty,
      },
    ],
    goodput,
  };
  return { ...s, tokens };
}

// Reference draws, computed from the values alone.

/** Nearest rank, as HDR and the per-second histograms read a percentile. */
const nearestRank =
  (percentile: number) =>
  (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.max(1, Math.ceil((percentile / 100) * sorted.length)) - 1] ?? Number.NaN;
  };
const meanOf = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** Sample standard deviation of the logs of these values. */
function logSpread(values: readonly number[]): number {
  const logs = values.map(Math.log);
  const m = meanOf(logs);
  return Math.sqrt(logs.reduce((a, b) => a + (b - m) ** 2, 0) / (logs.length - 1));
}

/** As many windows as the run has, picked with replacement and merged, read, and shifted by `spread`. */
function windowDraws(
  windows: readonly (readonly number[])[],
  read: (values: readonly number[]) => number,
  spread: number,
  n: number,
  seed: number,
): number[] {
  const rng = new SeededRandom(seed);
  return Array.from({ length: n }, () => {
    const merged: number[] = [];
    for (let k = 0; k < windows.length; k++) merged.push(...(windows[rng.below(windows.length)] ?? []));
    const v = read(merged);
    return spread === 0 ? v : v * Math.exp(spread * rng.normal());
  });
}

/** The rank of the q-quantile of `sorted` drawn around n·q (sd √(n·q·(1−q))), its value shifted by `spread`. */
function rankDraws(sorted: readonly number[], q: number, spread: number, n: number, seed: number): number[] {
  const rng = new SeededRandom(seed);
  const count = sorted.length;
  return Array.from({ length: n }, () => {
    const z = rng.normal();
    const rank = Math.min(count, Math.max(1, Math.round(count * q + Math.sqrt(count * q * (1 - q)) * z)));
    const v = sorted[rank - 1] ?? Number.NaN;
    return spread === 0 ? v : v * Math.exp(spread * rng.normal());
  });
}

/** k of n drawn as k/n plus a normal of the half-count-smoothed share's standard error, within [0, 1]. */
function shareDraws(k: number, total: number, n: number, seed: number): number[] {
  const rng = new SeededRandom(seed);
  const smoothed = (k + 0.5) / (total + 1);
  const sd = Math.sqrt((smoothed * (1 - smoothed)) / total);
  return Array.from({ length: n }, () => Math.min(1, Math.max(0, k / total + sd * rng.normal())));
}

function expectClose(actual: readonly (number | null)[], expected: readonly number[], digits = 12): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => {
    expect(a, `draw ${i}`).not.toBeNull();
    expect(a ?? Number.NaN, `draw ${i}`).toBeCloseTo(expected[i] ?? Number.NaN, digits);
  });
}

// Bucket tops (64·2^k − 1 µs): values a per-second histogram keeps exactly.
const FAST = 1.023;
const MID = 2.047;
const SLOW = 4.095;

describe('the per-second bootstrap of a request latency', () => {
  it('reads the merged windows by nearest rank: the rank reached exactly at a bucket is that bucket', () => {
    // Two identical seconds: every window reads the same, so no run shift; p50 of 20 is rank 10, the last FAST.
    const second = [...repeat(FAST, 5), ...repeat(MID, 5)];
    const s = run({ status: [second, second] });
    const p50 = samplerOf(s, 'p50(status)');
    expect(p50.method).toBe('per-second bootstrap');
    expect(new Set(drawn(p50, 20, 3))).toEqual(new Set([sparse(FAST)]));
    // The mean reads every bucket, the highest (the run's slowest) too.
    const mean = samplerOf(s, 'mean(status)');
    expect(mean.method).toBe('per-second bootstrap');
    for (const d of drawn(mean, 20, 3))
      expect(d ?? Number.NaN).toBeCloseTo((sparse(FAST) + sparse(MID)) / 2, 12);
  });

  it("shifts each draw by the spread of the windows' log values (two windows: |ln a − ln b| / √2)", () => {
    const fast = repeat(FAST, 10);
    const slow = repeat(SLOW, 10);
    const s = run({ status: [fast, slow] });
    const spread = logSpread([sparse(FAST), sparse(SLOW)]);
    expect(spread).toBeCloseTo(Math.abs(Math.log(SLOW) - Math.log(FAST)) / Math.SQRT2, 12);
    const sampler = samplerOf(s, 'p50(status)');
    expect(sampler.method).toBe('per-second bootstrap');
    const windows = [fast.map(sparse), slow.map(sparse)];
    expectClose(drawn(sampler, 40, 5), windowDraws(windows, nearestRank(50), spread, 40, 5));
    // The mean of the same windows, with the spread of the windows' means (here the same values).
    expectClose(drawn(samplerOf(s, 'mean(status)'), 40, 6), windowDraws(windows, meanOf, spread, 40, 6));
  });

  it('three windows: the spread is the sample standard deviation (n − 1) of three logs', () => {
    const seconds = [repeat(FAST, 10), repeat(MID, 10), repeat(SLOW, 10)];
    const s = run({ status: seconds });
    const spread = logSpread([FAST, MID, SLOW].map(sparse));
    const windows = seconds.map((values) => values.map(sparse));
    expectClose(
      drawn(samplerOf(s, 'p50(status)'), 40, 8),
      windowDraws(windows, nearestRank(50), spread, 40, 8),
    );
  });

  it('a window that reads 0 ms has no log: it is left out of the spread, and one window left gives none', () => {
    // Second 0 answered in under a microsecond; second 1 in MID. The spread of one log is 0, so
    // draws are the merged means unshifted, and no normal is drawn between the picks.
    const seconds = [repeat(0, 10), repeat(MID, 10)];
    const s = run({ status: seconds });
    const sampler = samplerOf(s, 'mean(status)');
    const windows = seconds.map((values) => values.map(sparse));
    const d = drawn(sampler, 40, 9);
    expectClose(d, windowDraws(windows, meanOf, 0, 40, 9));
    // All three merges occur: both windows 0, one of each, both MID.
    expect(new Set(d.map((v) => (v ?? Number.NaN).toFixed(6)))).toEqual(
      new Set(['0.000000', (sparse(MID) / 2).toFixed(6), sparse(MID).toFixed(6)]),
    );
  });

  it("end-to-end job times shift by the request windows' spread where it passes the job noise", () => {
    const seconds = [repeat(FAST, 10), repeat(SLOW, 10)];
    const values = Array.from({ length: 100 }, (_, i) => ((i + 1) * 10) / 1000);
    const s = withJobs(run({ status: seconds }), [], values);
    const spread = logSpread([FAST, SLOW].map(sparse));
    const e2e = samplerOf(s, 'p50(e2e{status=FAILED})', 0.05);
    expect(e2e.method).toBe('order-statistic resampling');
    expectClose(drawn(e2e, 40, 10), rankDraws(values, 0.5, spread, 40, 10));
    // A job noise above the windows' spread is the shift.
    expectClose(drawn(samplerOf(s, 'p50(e2e{status=FAILED})', 2), 40, 10), rankDraws(values, 0.5, 2, 40, 10));
  });
});

describe('which sampler a request latency gets', () => {
  it('two windows are enough for the per-second bootstrap; one is not, and then only percentiles are drawn run-wide', () => {
    const second = [...repeat(FAST, 10), ...repeat(MID, 10)];
    const two = run({ status: [second, second] });
    expect(methodOf(two, 'p50(status)')).toBe('per-second bootstrap');
    expect(methodOf(two, 'mean(status)')).toBe('per-second bootstrap');
    const one = run({ status: [[...second, ...second]] });
    expect(methodOf(one, 'p50(status)')).toBe('order-statistic resampling');
    // A mean has no rank to draw.
    expect(methodOf(one, 'mean(status)')).toBeUndefined();
  });

  it('a mean needs 10 values; a percentile 10 above it', () => {
    expect(methodOf(run({ status: [repeat(FAST, 5), repeat(MID, 5)] }), 'mean(status)')).toBe(
      'per-second bootstrap',
    );
    expect(methodOf(run({ status: [repeat(FAST, 5), repeat(MID, 4)] }), 'mean(status)')).toBeUndefined();
    expect(methodOf(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), 'p50(status)')).toBe(
      'per-second bootstrap',
    );
    expect(methodOf(run({ status: [repeat(FAST, 10), repeat(MID, 9)] }), 'p50(status)')).toBeUndefined();
  });

  it('no minimum or maximum, however many values', () => {
    const s = run({ status: [repeat(FAST, 600), repeat(MID, 600)] });
    expect(methodOf(s, 'min(status)')).toBeUndefined();
    expect(methodOf(s, 'max(status)')).toBeUndefined();
    expect(methodOf(s, 'min(status{status=2xx})')).toBeUndefined();
    expect(methodOf(s, 'max(status{status=2xx})')).toBeUndefined();
    expect(methodOf(s, 'p99(status)')).toBe('per-second bootstrap');
  });

  it('counts, and metrics that are not in the catalogue, have none', () => {
    const s = run({ status: [repeat(FAST, 20), repeat(MID, 20)] });
    expect(methodOf(s, 'count(status)')).toBeUndefined();
    expect(methodOf(s, 'count(violations)')).toBeUndefined();
    expect(methodOf(s, 'count(violation:transition.*)')).toBeUndefined();
  });
});

describe('the order statistic of job timings', () => {
  // 100 execution times of 10 µs to 1 ms, each held exactly by the run-wide histogram.
  const values = Array.from({ length: 100 }, (_, i) => ((i + 1) * 10) / 1000);

  it('draws the rank around n·q and reads the value there; without job noise nothing more', () => {
    const s = withJobs(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), values);
    const p50 = samplerOf(s, 'p50(executionTime)', 0);
    expect(p50.method).toBe('order-statistic resampling');
    const d = drawn(p50, 60, 11);
    expect(d).toEqual(rankDraws(values, 0.5, 0, 60, 11));
    expect(drawn(samplerOf(s, 'p80(executionTime)', 0), 60, 12)).toEqual(rankDraws(values, 0.8, 0, 60, 12));
    // Ranks both above and below the median are drawn.
    expect(Math.min(...d.map((v) => v ?? 0))).toBeLessThan(0.5);
    expect(Math.max(...d.map((v) => v ?? 0))).toBeGreaterThan(0.51);
  });

  it('with job noise, each value is shifted by exp(noise · z)', () => {
    const s = withJobs(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), values);
    expectClose(drawn(samplerOf(s, 'p50(executionTime)', 0.2), 60, 13), rankDraws(values, 0.5, 0.2, 60, 13));
  });

  it('only a percentile strictly between the minimum and the maximum, with 10 values above it', () => {
    const s = withJobs(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), values);
    expect(methodOf(s, 'p80(executionTime)')).toBe('order-statistic resampling');
    // p90 of exactly 100 values: 10 lie above it (1 − 90/100 is 0.0999… in floating point, which
    // once read it as 9.999… values and refused it); p91 has only 9.
    expect(methodOf(s, 'p90(executionTime)')).toBe('order-statistic resampling');
    expect(methodOf(s, 'p91(executionTime)')).toBeUndefined();
    expect(methodOf(s, 'p95(executionTime)')).toBeUndefined();
    expect(methodOf(s, 'min(executionTime)')).toBeUndefined();
    expect(methodOf(s, 'max(executionTime)')).toBeUndefined();
    expect(methodOf(s, 'mean(executionTime)')).toBeUndefined();
    expect(methodOf(s, 'count(executionTime)')).toBeUndefined();
  });
});

describe('token timings and goodput', () => {
  const ttft = Array.from({ length: 40 }, (_, i) => (500 + 10 * i) / 1000);
  const goodput = { judged: 50, good: 40, share: 0.8, perSecond: 20 };

  it('a TTFT percentile is an order statistic; its minimum, maximum and mean are not resampled', () => {
    const s = withTokens(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), ttft, goodput);
    const p50 = samplerOf(s, 'p50(ttft)', 0);
    expect(p50.method).toBe('order-statistic resampling');
    expect(drawn(p50, 40, 14)).toEqual(rankDraws(ttft, 0.5, 0, 40, 14));
    expect(methodOf(s, 'min(ttft)')).toBeUndefined();
    expect(methodOf(s, 'max(ttft)')).toBeUndefined();
    expect(methodOf(s, 'mean(ttft)')).toBeUndefined();
    // No inter-token latencies recorded: nothing to draw.
    expect(methodOf(s, 'p50(itl)')).toBeUndefined();
  });

  it('goodput as a share of the judged requests, drawn as a proportion; not without token data', () => {
    const streamed = withTokens(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), ttft, goodput);
    const share = samplerOf(streamed, 'rate(goodput)');
    expect(share.method).toBe('binomial resampling');
    expectClose(drawn(share, 40, 15), shareDraws(40, 50, 40, 15));
    expect(methodOf(streamed, 'rps(goodput)')).toBeUndefined();
    expect(methodOf(streamed, 'count(goodput)')).toBeUndefined();
    const unjudged = withTokens(streamed, ttft, { judged: 0, good: 0, share: null, perSecond: null });
    expect(methodOf(unjudged, 'rate(goodput)')).toBeUndefined();
    expect(methodOf(run({ status: [repeat(FAST, 10), repeat(MID, 10)] }), 'rate(goodput)')).toBeUndefined();
  });
});

describe('shares', () => {
  /** `run` answered 34 × 2xx and 6 × 4xx, `status` 3 × 5xx, 2 transport errors and 5 × 429. */
  function outcomes(): Summary {
    const s = run({ run: [repeat(FAST, 20), repeat(FAST, 20)], status: [repeat(FAST, 5), repeat(FAST, 5)] });
    s.operations.run = opSummary(40, { '2xx': outcome(34), '4xx': outcome(6) });
    s.operations.status = opSummary(10, { '5xx': outcome(3), error: outcome(2), '429': outcome(5) }, 5);
    return s;
  }

  it.each([
    ['rate(2xx)', 34, 50],
    ['rate(4xx)', 6, 50],
    ['rate(5xx)', 3, 50],
    ['rate(errors)', 2, 50],
    ['rate(errors{op=status})', 2, 10],
    ['rate(4xx{op=run})', 6, 40],
    ['rate(429{op=status})', 5, 10],
  ])('%s: %d of %d requests, each operation counting only the outcomes it had', (e, k, n) => {
    const sampler = samplerOf(outcomes(), e);
    expect(sampler.method).toBe('binomial resampling');
    expectClose(drawn(sampler, 30, 16), shareDraws(k, n, 30, 16));
  });

  it("a job state's share of the jobs that ended, lost jobs among them", () => {
    const s = structuredClone(B);
    s.jobs.byState = { COMPLETED: 30, FAILED: 6, CANCELLED: 2, TIMED_OUT: 2 };
    s.jobs.lost = 10;
    expectClose(drawn(samplerOf(s, 'rate(completed)'), 30, 17), shareDraws(30, 50, 30, 17));
    expectClose(drawn(samplerOf(s, 'rate(lost)'), 30, 18), shareDraws(10, 50, 30, 18));
    expectClose(drawn(samplerOf(s, 'rate(timed_out)'), 30, 19), shareDraws(2, 50, 30, 19));
  });

  it("a proportion's draws: mean k/n, spread the smoothed standard error", () => {
    const s = structuredClone(B);
    s.jobs.byState = { COMPLETED: 120, FAILED: 60, CANCELLED: 10, TIMED_OUT: 10 };
    s.jobs.lost = 0;
    const d = drawn(samplerOf(s, 'rate(failed)'), 4000, 20).map((v) => v ?? Number.NaN);
    const mean = meanOf(d);
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1));
    const smoothed = 60.5 / 201;
    const se = Math.sqrt((smoothed * (1 - smoothed)) / 200);
    // 4000 draws: the mean is within 4 standard errors of its own (se / √4000), the sd within 5 %.
    expect(Math.abs(mean - 0.3)).toBeLessThan((4 * se) / Math.sqrt(4000));
    expect(Math.abs(sd / se - 1)).toBeLessThan(0.05);
  });

  it('the 429 share per second: the 429s over the requests of the picked windows', () => {
    const s = run({ status: [repeat(FAST, 10), repeat(FAST, 20)] });
    s.series.r429 = [2, 6];
    const sampler = samplerOf(s, 'rate(429)');
    expect(sampler.method).toBe('per-second bootstrap');
    const rng = new SeededRandom(21);
    const expected = Array.from({ length: 40 }, () => {
      const picks = [rng.below(2), rng.below(2)];
      return (
        picks.reduce((n, i) => n + (s.series.r429[i] ?? 0), 0) /
        picks.reduce((n, i) => n + (s.series.requests[i] ?? 0), 0)
      );
    });
    const d = drawn(sampler, 40, 21);
    expectClose(d, expected);
    expect(new Set(d)).toEqual(new Set([0.2, 8 / 30, 0.3]));
    // One second: the run-wide share, drawn as a proportion.
    expect(methodOf(run({ status: [repeat(FAST, 30)] }), 'rate(429)')).toBe('binomial resampling');
  });
});

describe('the rate per second', () => {
  it('the requests of the picked seconds over the measured time; `requests` counts every operation', () => {
    const s = run({ status: [repeat(FAST, 3), repeat(FAST, 5)], run: [repeat(FAST, 2), repeat(FAST, 4)] });
    // An operation the per-second series never saw adds nothing to any second.
    s.operations.cancel = opSummary(7, {});
    const perSecond = (col: readonly number[], seed: number): number[] => {
      const rng = new SeededRandom(seed);
      return Array.from({ length: 30 }, () => ((col[rng.below(2)] ?? 0) + (col[rng.below(2)] ?? 0)) / 2);
    };
    const all = samplerOf(s, 'rps(requests)');
    expect(all.method).toBe('per-second bootstrap');
    expectClose(drawn(all, 30, 22), perSecond([5, 9], 22));
    expectClose(drawn(samplerOf(s, 'rps(latency)'), 30, 23), perSecond([5, 9], 23));
    expectClose(drawn(samplerOf(s, 'rps(run)'), 30, 24), perSecond([2, 4], 24));
    expectClose(drawn(samplerOf(s, 'rps(requests{op=status})'), 30, 25), perSecond([3, 5], 25));
  });
});

describe('valuesNeeded: what a percentile needs for 10 values above it', () => {
  it('is exact at round percentiles, whatever their floating-point error', () => {
    expect(valuesNeeded(90)).toBe(100);
    expect(valuesNeeded(99)).toBe(1000);
    expect(valuesNeeded(99.9)).toBe(10000);
    expect(valuesNeeded(50)).toBe(20);
    expect(valuesNeeded(95)).toBe(200);
    // Not a whole number of values: the next one up.
    expect(valuesNeeded(97)).toBe(334);
    expect(valuesNeeded(-1)).toBe(10);
  });
});
