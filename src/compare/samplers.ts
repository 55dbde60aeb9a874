import { OPERATIONS } from '../core/operation.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { LatencyHistogram } from '../metrics/histogram.js';
import { SparseHistogram } from '../metrics/sparse-histogram.js';
import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { thresholdHistogram } from '../report/threshold-evaluation.js';
import { THRESHOLD_METRICS } from '../report/threshold-metrics.js';
import type { SignificanceMethod } from './compare-data.js';
import { SeededRandom } from './random.js';
import { countWindows, latencyWindows, type BucketWindow } from './windows.js';

/**
 * A sampler draws the metric of one run as it might have come out of a rerun: from the run's own
 * per-second windows where the series has the metric, else from its run-wide data (independent
 * draws, which know nothing of drift and so are the weaker kind). Null when it cannot be drawn.
 */
export interface Sampler {
  method: SignificanceMethod;
  draw(rng: SeededRandom): number | null;
}

function pick<T>(items: readonly T[], rng: SeededRandom): T {
  return items[rng.below(items.length)] as T;
}

/** Percentile (0 < p < 100) or mean (-1) of windows resampled with replacement and merged. */
function windowLatency(windows: readonly BucketWindow[], percentile: number): Sampler {
  let top = 0;
  for (const w of windows) for (const i of w.index) top = Math.max(top, i);
  const dense = new Float64Array(top + 1);
  return {
    method: 'per-second bootstrap',
    draw(rng) {
      dense.fill(0);
      let total = 0;
      for (let k = 0; k < windows.length; k++) {
        const w = pick(windows, rng);
        for (let j = 0; j < w.index.length; j++) dense[w.index[j] ?? 0] = (dense[w.index[j] ?? 0] ?? 0) + (w.count[j] ?? 0);
        total += w.total;
      }
      if (total === 0) return null;
      if (percentile < 0) {
        let sum = 0;
        for (let i = 0; i <= top; i++) sum += (dense[i] ?? 0) * SparseHistogram.bucketMs(i);
        return sum / total;
      }
      const rank = Math.max(1, Math.ceil((percentile / 100) * total));
      let seen = 0;
      for (let i = 0; i <= top; i++) {
        seen += dense[i] ?? 0;
        if (seen >= rank) return SparseHistogram.bucketMs(i);
      }
      return SparseHistogram.bucketMs(top);
    },
  };
}

/** sum(numerators) / sum(denominators) (× scale) over windows resampled with replacement. */
function windowRatio(windows: readonly number[][], scale: number, fixedDenominator?: number): Sampler {
  return {
    method: 'per-second bootstrap',
    draw(rng) {
      let num = 0;
      let den = 0;
      for (let k = 0; k < windows.length; k++) {
        const w = pick(windows, rng);
        num += w[0] ?? 0;
        den += w[1] ?? 0;
      }
      const d = fixedDenominator ?? den;
      return d === 0 ? null : (num / d) * scale;
    },
  };
}

/** Draws a rank near n·q (normal approximation of Binomial(n, q)), its spread times `inflation`. */
function rankDraws(h: LatencyHistogram, q: number, inflation: number): Sampler {
  const n = h.count;
  const sd = Math.sqrt(n * q * (1 - q)) * inflation;
  const memo = new Map<number, number>();
  return {
    method: 'order-statistic resampling',
    draw(rng) {
      const rank = Math.min(n, Math.max(1, Math.round(n * q + sd * rng.normal())));
      let v = memo.get(rank);
      if (v === undefined) {
        v = h.percentileMs((100 * rank) / n);
        memo.set(rank, v);
      }
      return v;
    },
  };
}

function variance(sampler: Sampler, rng: SeededRandom, draws: number): number {
  const xs: number[] = [];
  for (let i = 0; i < draws; i++) {
    const x = sampler.draw(rng);
    if (x !== null) xs.push(x);
  }
  const mean = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1);
}

const MAX_INFLATION = 10;

/**
 * Job timings have no per-second series, and independent draws would miss the noise that comes a
 * second at a time (a stalled event loop delays many jobs at once). So the spread is widened by
 * how much wider the run's own request latencies spread when resampled by second than when drawn
 * independently (a design effect), measured at the same percentile.
 */
const clusteringMemo = new WeakMap<Summary, number>();

/**
 * One factor per run, the median of the factors at p50, p90 and p99: each alone rests on a few
 * windows in a short run and jumps around; their median is steadier.
 */
export function clustering(s: Summary): number {
  let f = clusteringMemo.get(s);
  if (f === undefined) {
    const factors = [50, 90, 99].map((p) => measureClustering(s, p)).sort((a, b) => a - b);
    f = factors[1] ?? 1;
    clusteringMemo.set(s, f);
  }
  return f;
}

function measureClustering(s: Summary, percentile: number): number {
  const windows = latencyWindows(s, Object.keys(s.operations));
  const all = LatencyHistogram.create();
  for (const o of Object.values(s.operations)) for (const x of Object.values(o.outcomes)) all.merge(LatencyHistogram.decode(x.intended));
  if (windows.length < 2 || all.count < 2) return 1;
  const rng = new SeededRandom(percentile * 1000 + windows.length);
  const byWindow = variance(windowLatency(windows, percentile), rng, 400);
  const independent = variance(rankDraws(all, percentile / 100, 1), rng, 400);
  if (independent <= 0) return byWindow > 0 ? MAX_INFLATION : 1;
  return Math.min(MAX_INFLATION, Math.max(1, Math.sqrt(byWindow / independent)));
}

/**
 * The q-quantile of n values has a rank spread like Binomial(n, q): draw the rank and read the
 * run-wide histogram there, widened by the run's clustering.
 */
function orderStatistic(s: Summary, t: Threshold, percentile: number): Sampler | undefined {
  const h = thresholdHistogram(s, t);
  if (!h || h.count === 0) return undefined;
  return rankDraws(h, percentile / 100, clustering(s));
}

/** A proportion k/n drawn around itself, with a half-count prior so 0 of n still varies. */
function binomial(k: number, n: number): Sampler | undefined {
  if (n === 0) return undefined;
  const p = k / n;
  const smoothed = (k + 0.5) / (n + 1);
  const sd = Math.sqrt((smoothed * (1 - smoothed)) / n);
  return { method: 'binomial resampling', draw: (rng) => Math.min(1, Math.max(0, p + sd * rng.normal())) };
}

function selectedOps(s: Summary, t: Threshold): string[] {
  const named = (OPERATIONS as readonly string[]).includes(t.metric) ? t.metric : t.tags.op;
  return Object.keys(s.operations).filter((op) => named === undefined || op === named);
}

const REQUEST_OUTCOME: Record<string, (o: Summary['operations'][string]) => number> = {
  '429': (o) => o.count429,
  '2xx': (o) => o.outcomes['2xx']?.count ?? 0,
  '4xx': (o) => o.outcomes['4xx']?.count ?? 0,
  '5xx': (o) => o.outcomes['5xx']?.count ?? 0,
  errors: (o) => o.outcomes.error?.count ?? 0,
};

const JOB_RATE: Record<string, (s: Summary) => number> = {
  completed: (s) => s.jobs.byState.COMPLETED,
  failed: (s) => s.jobs.byState.FAILED,
  cancelled: (s) => s.jobs.byState.CANCELLED,
  timed_out: (s) => s.jobs.byState.TIMED_OUT,
  lost: (s) => s.jobs.lost,
};

function latencySampler(s: Summary, t: Threshold): Sampler | undefined {
  const a = t.aggregation;
  const perSecond = t.tags.status === undefined && t.tags.from !== 'sent';
  if (a.kind === 'rps') {
    if (!perSecond || s.run.durationMs <= 0) return undefined;
    const ops = selectedOps(s, t);
    const requests = Array.from({ length: s.series.length }, (_, i) => ops.reduce((n, op) => n + (s.series.ops[op]?.requests[i] ?? 0), 0));
    const windows = countWindows(s.series.length, [requests]).map((w) => [w[0] ?? 0, 0]);
    return windowRatio(windows, 1, s.run.durationMs / 1000);
  }
  if (a.kind !== 'percentile' || a.percentile === 0 || a.percentile === 100) return undefined;
  if (perSecond) {
    const windows = latencyWindows(s, selectedOps(s, t));
    if (windows.length >= 2) return windowLatency(windows, a.percentile);
  }
  return a.percentile > 0 ? orderStatistic(s, t, a.percentile) : undefined;
}

function rateSampler(s: Summary, t: Threshold): Sampler | undefined {
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  if (family === 'request-rate') {
    if (t.metric === '429' && t.tags.op === undefined) {
      const windows = countWindows(s.series.length, [s.series.r429, s.series.requests]);
      if (windows.length >= 2) return windowRatio(windows, 1);
    }
    const ops = selectedOps(s, t).map((op) => s.operations[op]);
    const k = ops.reduce((n, o) => n + (o ? (REQUEST_OUTCOME[t.metric]?.(o) ?? 0) : 0), 0);
    return binomial(k, ops.reduce((n, o) => n + (o?.requests ?? 0), 0));
  }
  const count = JOB_RATE[t.metric];
  if (family !== 'job-rate' || !count) return undefined;
  const ended = FINAL_STATES.reduce((n, st) => n + s.jobs.byState[st], 0) + s.jobs.lost;
  return binomial(count(s), ended);
}

/** How to resample the metric a threshold names on one run; undefined when it cannot be. */
export function samplerFor(s: Summary, t: Threshold): Sampler | undefined {
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  if (t.aggregation.kind === 'count') return undefined;
  if (family === 'latency') return latencySampler(s, t);
  if (family === 'job-timing') {
    const a = t.aggregation;
    return a.kind === 'percentile' && a.percentile > 0 && a.percentile < 100 ? orderStatistic(s, t, a.percentile) : undefined;
  }
  if (t.aggregation.kind === 'rate') return rateSampler(s, t);
  return undefined;
}
