import { describe, expect, it } from 'vitest';
import { measure, valueOf } from '../../src/compare/bootstrap.js';
import { SeededRandom } from '../../src/compare/random.js';
import { samplerFor } from '../../src/compare/samplers.js';
import { SeededRandom as CoreRandom } from '../../src/core/seeded-random.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import type { Summary } from '../../src/report/summary.js';
import { parseThresholds, type Threshold } from '../../src/report/threshold.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * The resampling under every row (random.ts, samplers.ts, bootstrap.ts): which sampler a metric
 * gets, what its draws can be, and how the draws of two runs become an interval and a p-value.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);
const SETTINGS = { level: 0.95, resamples: 300, seed: 1, jobNoise: 0.05 };

function metric(expression: string): Threshold {
  const [t] = parseThresholds([{ expression: `${expression} >= 0`, where: 'test' }]);
  if (!t) throw new Error(expression);
  return { ...t, expression };
}

const methodOf = (s: Summary, e: string): string | undefined => samplerFor(s, metric(e), 0.05)?.method;

function draws(s: Summary, e: string, n = 200, seed = 7): number[] {
  const sampler = samplerFor(s, metric(e), 0.05);
  if (!sampler) throw new Error(`no sampler for ${e}`);
  const rng = new SeededRandom(seed);
  return Array.from({ length: n }, () => sampler.draw(rng) ?? Number.NaN);
}

describe('SeededRandom', () => {
  it('below(n) is a whole number in [0, n), the uniform draw times n, floored', () => {
    const a = new SeededRandom(3);
    const u = new CoreRandom(3);
    for (let i = 0; i < 50; i++) expect(a.below(7)).toBe(Math.floor(u.next() * 7));
  });

  it('normal(): both values of one Box–Muller pair, cosine first, then the sine, then a new pair', () => {
    const a = new SeededRandom(11);
    const u = new CoreRandom(11);
    for (let pair = 0; pair < 3; pair++) {
      const x = Math.max(u.next(), Number.MIN_VALUE);
      const y = u.next();
      const r = Math.sqrt(-2 * Math.log(x));
      expect(a.normal()).toBeCloseTo(r * Math.cos(2 * Math.PI * y), 12);
      expect(a.normal()).toBeCloseTo(r * Math.sin(2 * Math.PI * y), 12);
    }
  });
});

describe('samplerFor: which resampling a metric gets', () => {
  it('per-second windows for request latencies and the run-wide 429 share; none for counts and maxima', () => {
    expect(methodOf(B, 'p50(run)')).toBe('per-second bootstrap');
    expect(methodOf(B, 'mean(status)')).toBe('per-second bootstrap');
    expect(methodOf(B, 'rps(run)')).toBe('per-second bootstrap');
    expect(methodOf(B, 'rate(429)')).toBe('per-second bootstrap');
    expect(methodOf(B, 'count(run)')).toBeUndefined();
    expect(methodOf(B, 'max(run)')).toBeUndefined();
    expect(methodOf(B, 'min(run)')).toBeUndefined();
  });

  it('run-wide draws where the series cannot say: by status, from the send, job timings, shares', () => {
    expect(methodOf(B, 'p50(run{status=2xx})')).toBe('order-statistic resampling');
    expect(methodOf(B, 'p50(run{from=sent})')).toBe('order-statistic resampling');
    expect(methodOf(B, 'p50(executionTime)')).toBe('order-statistic resampling');
    expect(methodOf(B, 'p50(e2e)')).toBe('order-statistic resampling');
    expect(methodOf(B, 'rate(errors)')).toBe('binomial resampling');
    expect(methodOf(B, 'rate(429{op=run})')).toBe('binomial resampling');
    expect(methodOf(B, 'rate(completed)')).toBe('binomial resampling');
    // Not what they can be resampled for: a rate per second by status, a job timing's mean and maximum.
    expect(methodOf(B, 'rps(run{status=2xx})')).toBeUndefined();
    expect(methodOf(B, 'mean(executionTime)')).toBeUndefined();
    expect(methodOf(B, 'max(executionTime)')).toBeUndefined();
  });

  it('a percentile with fewer than 10 values above it is not resampled', () => {
    // 46 run requests: p50 leaves 23 above it, p90 4.6.
    expect(methodOf(B, 'p90(run)')).toBeUndefined();
    expect(methodOf(B, 'p50(run{status=2xx})')).toBeDefined();
    expect(methodOf(B, 'p90(run{status=2xx})')).toBeUndefined();
  });

  it('goodput: its share resampled as a proportion; its count and rate per second not, nor token timings without tokens', () => {
    const streamed: Summary = {
      ...B,
      tokens: { goodput: { judged: 50, good: 40, share: 0.8, perSecond: null } } as Summary['tokens'],
    };
    expect(methodOf(streamed, 'rate(goodput)')).toBe('binomial resampling');
    const d = draws(streamed, 'rate(goodput)', 300);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    expect(Math.abs(mean - 0.8)).toBeLessThan(0.03);
    expect(new Set(d).size).toBeGreaterThan(100);
    expect(methodOf(streamed, 'count(goodput)')).toBeUndefined();
    expect(methodOf(streamed, 'rps(goodput)')).toBeUndefined();
    expect(methodOf(B, 'rate(goodput)')).toBeUndefined();
    expect(methodOf(B, 'p50(ttft)')).toBeUndefined();
    expect(methodOf(B, 'max(ttft)')).toBeUndefined();
  });

  it('one second of series: no windows to resample, so a request latency is drawn run-wide', () => {
    const one = { ...B, series: { ...B.series, length: 1 } };
    expect(methodOf(one, 'p50(status)')).toBe('order-statistic resampling');
    expect(methodOf(one, 'rate(429)')).toBe('binomial resampling');
  });
});

/** The run with `n` FAILED jobs, ending 100 ms to 100 + n ms after their submission. */
function failedJobs(s: Summary, n: number): Summary {
  const h = LatencyHistogram.create();
  for (let i = 0; i < n; i++) h.recordMs(100 + i);
  const x = structuredClone(s);
  x.jobs.e2e.FAILED.histogram = h.encode();
  return x;
}

describe('enough values to resample', () => {
  it('a percentile needs 10 values above it: p50 of 20 jobs is resampled, of 19 not', () => {
    expect(methodOf(failedJobs(B, 20), 'p50(e2e{status=FAILED})')).toBe('order-statistic resampling');
    expect(methodOf(failedJobs(B, 19), 'p50(e2e{status=FAILED})')).toBeUndefined();
  });

  it('a rate per second needs a measured run; a share needs requests', () => {
    expect(methodOf({ ...B, run: { ...B.run, durationMs: 0 } }, 'rps(run)')).toBeUndefined();
    expect(methodOf(B, 'rate(errors{op=cancel})')).toBeUndefined();
    expect(methodOf(B, 'rate(completed)')).toBe('binomial resampling');
    expect(methodOf({ ...B, jobs: { ...B.jobs, byState: { COMPLETED: 0, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 }, lost: 0 } }, 'rate(completed)')).toBeUndefined();
  });
});

describe('what the draws can be', () => {
  it('a mean resampled from the windows stays near the run\'s own mean', () => {
    const d = draws(B, 'mean(status)', 300);
    const v = valueOf(B, metric('mean(status)')) ?? 0;
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    expect(v).toBeGreaterThan(0);
    expect(Math.abs(mean - v) / v).toBeLessThan(0.15);
    expect(new Set(d).size).toBeGreaterThan(50);
  });

  it('a share of 0 or of all draws within [0, 1] and still varies', () => {
    const none = draws(B, 'rate(errors)');
    expect(Math.min(...none)).toBe(0);
    expect(Math.max(...none)).toBeGreaterThan(0);
    expect(Math.max(...none)).toBeLessThan(0.1);
    const all = draws(B, 'rate(2xx{op=run})');
    expect(Math.max(...all)).toBe(1);
    expect(Math.min(...all)).toBeLessThan(1);
    expect(Math.min(...all)).toBeGreaterThan(0.9);
  });

  it('job timings draw ranks around the percentile\'s own, shifted by the job noise', () => {
    const s = failedJobs(B, 1000);
    const d = draws(s, 'p50(executionTime)', 400);
    const v = valueOf(s, metric('p50(executionTime)')) ?? 0;
    const sorted = [...d].sort((x, y) => x - y);
    expect(Math.abs((sorted[200] ?? 0) - v) / v).toBeLessThan(0.1);
    expect(new Set(d).size).toBeGreaterThan(100);
    // Without job noise, a p50 of 1000 execution times draws only the recorded values near rank 500.
    const exec = structuredClone(s);
    exec.jobs.executionTime.histogram = exec.jobs.e2e.FAILED.histogram;
    const at = (e: string, from: Summary): number[] => {
      const sampler = samplerFor(from, metric(e), 0);
      const rng = new SeededRandom(1);
      return Array.from({ length: 300 }, () => sampler?.draw(rng) ?? 0);
    };
    const ranks = at('p50(executionTime)', exec);
    expect(Math.min(...ranks)).toBeGreaterThan(540);
    expect(Math.max(...ranks)).toBeLessThan(660);
    // The same values end to end, measured by the client: shifted at least as the request windows are.
    const e2e = at('p50(e2e{status=FAILED})', exec);
    expect(Math.min(...e2e) < 540 || Math.max(...e2e) > 660).toBe(true);
  });

  it('a share stays within [0, 1] and varies about its value', () => {
    const d = draws(C, 'rate(completed)');
    expect(Math.min(...d)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...d)).toBeLessThanOrEqual(1);
    expect(new Set(d).size).toBeGreaterThan(10);
  });

  it('the 429 share of runs that had none is 0 in every window resample', () => {
    expect(new Set(draws(B, 'rate(429)'))).toEqual(new Set([0]));
  });

  it('a rate per second resampled from the windows averages the run\'s own rate', () => {
    const d = draws(B, 'rps(run)', 400);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const rate = valueOf(B, metric('rps(run)')) ?? 0;
    expect(rate).toBeCloseTo(46 / (B.run.durationMs / 1000), 9);
    expect(Math.abs(mean - rate) / rate).toBeLessThan(0.1);
  });

  it('a latency percentile draws values near the run\'s own, never from nothing', () => {
    for (const e of ['p50(status)', 'p50(executionTime)', 'p50(status{status=2xx})']) {
      const d = draws(C, e);
      const v = valueOf(C, metric(e)) ?? 0;
      const sorted = [...d].sort((x, y) => x - y);
      const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
      expect(d.every((x) => Number.isFinite(x) && x > 0), e).toBe(true);
      expect(Math.abs(median - v) / v, e).toBeLessThan(0.25);
    }
  });
});

describe('measure', () => {
  it('a run against itself: the values agree, the interval holds 0, the p-value is high', () => {
    const m = measure(metric('p50(status)'), B, B, SETTINGS);
    expect(m.baseline).toBe(m.current);
    const s = m.significance;
    expect(s?.method).toBe('per-second bootstrap');
    expect(s?.ci?.[0]).toBeLessThanOrEqual(0);
    expect(s?.ci?.[1]).toBeGreaterThanOrEqual(0);
    expect(s?.p).toBeGreaterThan(0.2);
    expect(s?.confidence).toBeCloseTo(1 - (s?.p ?? 0), 12);
  });

  it('resamples that never move: an interval of [0, 0] and p = 1', () => {
    const m = measure(metric('rate(429)'), B, C, SETTINGS);
    expect(m).toMatchObject({ baseline: 0, current: 0 });
    expect(m.significance).toMatchObject({ ci: [0, 0], p: 1, confidence: 0 });
  });

  it('the p-value: twice the smaller tail, counting the draws at 0 on both sides, plus one over n + 1', () => {
    // executionTime is 30 % longer in the current run: every draw of the change is above 0.
    const m = measure(metric('p50(executionTime)'), B, C, SETTINGS);
    expect(m.significance?.p).toBeCloseTo((2 * (0 + 1)) / (300 + 1), 12);
    expect(m.significance?.ci?.[0]).toBeGreaterThan(0);
    const back = measure(metric('p50(executionTime)'), C, B, SETTINGS);
    expect(back.significance?.p).toBeCloseTo(2 / 301, 12);
    expect(back.significance?.ci?.[1]).toBeLessThan(0);
  });

  it('the interval narrows at a lower level, and is ordered', () => {
    const wide = measure(metric('p50(status)'), B, C, { ...SETTINGS, level: 0.99 }).significance?.ci;
    const narrow = measure(metric('p50(status)'), B, C, { ...SETTINGS, level: 0.5 }).significance?.ci;
    if (!wide || !narrow) throw new Error('no interval');
    expect(wide[0]).toBeLessThan(narrow[0]);
    expect(wide[1]).toBeGreaterThan(narrow[1]);
    expect(narrow[0]).toBeLessThanOrEqual(narrow[1]);
  });

  it('no significance without both values, without a sampler, or with samplers of two kinds', () => {
    expect(measure(metric('count(run)'), B, C, SETTINGS)).toEqual({ baseline: 46, current: 46, significance: null });
    expect(measure(metric('max(run)'), B, C, SETTINGS).significance).toBeNull();
    const one = { ...C, series: { ...C.series, length: 1 } };
    expect(measure(metric('p50(status)'), B, one, SETTINGS).significance).toBeNull();
    expect(measure(metric('p50(status)'), one, B, SETTINGS).significance).toBeNull();
    // One side with no windows at all: nothing to draw there.
    const empty = { ...C, series: { ...C.series, length: 0 } };
    expect(measure(metric('p50(status)'), B, empty, SETTINGS).significance).toBeNull();
    expect(measure(metric('p50(status)'), empty, B, SETTINGS).significance).toBeNull();
    const none = measure(metric('rate(errors{op=cancel})'), B, C, SETTINGS);
    expect(none).toEqual({ baseline: null, current: null, significance: null });
  });

  it('a resample that draws nothing on a side is left out, and none at all gives no significance', () => {
    // Hand-laid series: requests (all 429s) in second 1 only; a resample of 4 windows misses it a third of the time.
    const burst = (s: Summary, at: number | null): Summary => {
      const x = structuredClone(s);
      x.series.requests = x.series.requests.map((n, i) => (i === at ? 40 : 0));
      x.series.r429 = [...x.series.requests];
      return x;
    };
    const once = burst(B, 1);
    const m = measure(metric('rate(429)'), once, once, SETTINGS);
    // Only resamples that drew on both sides count: each reads 1 of 1, so every change is 0.
    expect(m.significance).toMatchObject({ ci: [0, 0], p: 1 });
    const never = burst(B, null);
    expect(measure(metric('rate(429)'), never, never, SETTINGS).significance).toBeNull();
    expect(measure(metric('rate(429)'), once, never, SETTINGS).significance).toBeNull();
  });

  it('the same seed gives the same draws; each metric has a stream of its own', () => {
    const a = measure(metric('p50(status)'), B, C, SETTINGS);
    expect(measure(metric('p50(status)'), B, C, SETTINGS)).toEqual(a);
    expect(measure(metric('p50(status)'), B, C, { ...SETTINGS, seed: 2 }).significance?.ci).not.toEqual(a.significance?.ci);
    const renamed = measure({ ...metric('p50(status)'), expression: 'p50( status )' }, B, C, SETTINGS);
    expect(renamed.significance?.ci).not.toEqual(a.significance?.ci);
  });
});
