import { OPERATIONS } from '../core/operation.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import type { LatencyHistogram } from '../metrics/histogram.js';
import { SparseHistogram } from '../metrics/sparse-histogram.js';
import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { thresholdHistogram } from '../report/threshold-evaluation.js';
import { THRESHOLD_METRICS } from '../report/threshold-metrics.js';
import type { SignificanceMethod } from './compare-data.js';
import type { SeededRandom } from './random.js';
import { measuredMs } from '../report/measured-time.js';
import { countWindows, firstMeasuredSecond, latencyWindows, type BucketWindow } from './windows.js';

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

/** The percentile (0 < p < 100) or mean (-1) of dense bucket counts. */
function readDense(dense: Float64Array, total: number, percentile: number): number | null {
  if (total === 0) return null;
  if (percentile < 0) {
    let sum = 0;
    for (let i = 0; i < dense.length; i++) sum += (dense[i] ?? 0) * SparseHistogram.bucketMs(i);
    return sum / total;
  }
  const rank = Math.max(1, Math.ceil((percentile / 100) * total));
  let seen = 0;
  for (let i = 0; i < dense.length; i++) {
    seen += dense[i] ?? 0;
    if (seen >= rank) return SparseHistogram.bucketMs(i);
  }
  return SparseHistogram.bucketMs(dense.length - 1);
}

function denseOf(windows: readonly BucketWindow[], top: number): Float64Array {
  const dense = new Float64Array(top + 1);
  for (const w of windows)
    for (let j = 0; j < w.index.length; j++)
      dense[w.index[j] ?? 0] = (dense[w.index[j] ?? 0] ?? 0) + (w.count[j] ?? 0);
  return dense;
}

/**
 * How far one window's value strays from another's, as the spread of log values. A run is taken to
 * be able to shift as a whole by as much as one window does: the noise between runs (another
 * tenant, a GC regime, a warm cache) is a level shift the windows of one run cannot average away.
 */
function windowSpread(windows: readonly BucketWindow[], top: number, percentile: number): number {
  const logs = windows
    .map((w) => readDense(denseOf([w], top), w.total, percentile))
    .filter((v): v is number => v !== null && v > 0)
    .map(Math.log);
  if (logs.length < 2) return 0;
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
}

/** Percentile (0 < p < 100) or mean (-1) of windows resampled with replacement and merged, times a run-level shift. */
function windowLatency(windows: readonly BucketWindow[], percentile: number, runShift = true): Sampler {
  let top = 0;
  for (const w of windows) for (const i of w.index) top = Math.max(top, i);
  const dense = new Float64Array(top + 1);
  const spread = runShift ? windowSpread(windows, top, percentile) : 0;
  return {
    method: 'per-second bootstrap',
    draw(rng) {
      dense.fill(0);
      let total = 0;
      for (let k = 0; k < windows.length; k++) {
        const w = pick(windows, rng);
        for (let j = 0; j < w.index.length; j++)
          dense[w.index[j] ?? 0] = (dense[w.index[j] ?? 0] ?? 0) + (w.count[j] ?? 0);
        total += w.total;
      }
      const v = readDense(dense, total, percentile);
      return v === null || spread === 0 ? v : v * Math.exp(spread * rng.normal());
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

/**
 * The q-quantile of n values has a rank spread like Binomial(n, q): draw the rank (normal
 * approximation), read the run-wide histogram there, and shift the whole run by `spread` (log).
 */
function rankDraws(h: LatencyHistogram, q: number, spread: number): Sampler {
  const n = h.count;
  const sd = Math.sqrt(n * q * (1 - q));
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
      return spread === 0 ? v : v * Math.exp(spread * rng.normal());
    },
  };
}

/**
 * Job timings have no per-second series, so no run shows how far its job times could shift as a
 * whole: `jobNoise` is that shift, assumed (log scale, one standard deviation). Times jobstorm
 * measures itself (end-to-end, first chunk) pass through the client and the network like every
 * request, so they shift at least as much as the run's request latencies do from window to window.
 */
const CLIENT_MEASURED = new Set(['e2e', 'firstChunk']);

function orderStatistic(s: Summary, t: Threshold, percentile: number, jobNoise: number): Sampler | undefined {
  const h = thresholdHistogram(s, t);
  if (!h || !resolvable(h.count, percentile)) return undefined;
  let spread = jobNoise;
  if (CLIENT_MEASURED.has(t.metric)) {
    const windows = latencyWindows(s, Object.keys(s.operations));
    let top = 0;
    for (const w of windows) for (const i of w.index) top = Math.max(top, i);
    spread = Math.max(spread, windowSpread(windows, top, percentile));
  }
  return rankDraws(h, percentile / 100, spread);
}

/**
 * A percentile with fewer than this many values above it is the maximum by another name: what it
 * reads is one or two stragglers, which no resampling can tell from noise (p99 of 80 jobs).
 */
export const MIN_TAIL = 10;

/**
 * Values a percentile (0 < p < 100, or -1 for a mean) needs so that MIN_TAIL of them lie above it.
 * In hundredths, rounded off their float error: 1 − 90/100 is 0.09999999999999998 in floating
 * point, which made exactly 100 values too few for p90.
 */
export function valuesNeeded(percentile: number): number {
  if (percentile < 0) return MIN_TAIL;
  const exact = (MIN_TAIL * 100) / (100 - percentile);
  return Math.ceil(exact - 1e-9 * exact);
}

function resolvable(count: number, percentile: number): boolean {
  return count >= valuesNeeded(percentile);
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
  // `requests` and `latency` are metrics over every operation (as in thresholds), not /requests.
  const named =
    (OPERATIONS as readonly string[]).includes(t.metric) && t.metric !== 'requests' && t.metric !== 'latency'
      ? t.metric
      : t.tags.op;
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

function latencySampler(s: Summary, t: Threshold, jobNoise: number): Sampler | undefined {
  const a = t.aggregation;
  const perSecond = t.tags.status === undefined && t.tags.from !== 'sent';
  if (a.kind === 'rps') {
    if (!perSecond || s.run.durationMs <= 0) return undefined;
    const ops = selectedOps(s, t);
    const requests = Array.from({ length: s.series.length }, (_, i) =>
      ops.reduce((n, op) => n + (s.series.ops[op]?.requests[i] ?? 0), 0),
    );
    const windows = countWindows(s.series.length, [requests], firstMeasuredSecond(s)).map((w) => [
      w[0] ?? 0,
      0,
    ]);
    return windowRatio(windows, 1, measuredMs(s) / 1000);
  }
  if (a.kind !== 'percentile' || a.percentile === 0 || a.percentile === 100) return undefined;
  if (perSecond) {
    const windows = latencyWindows(s, selectedOps(s, t));
    if (
      !resolvable(
        windows.reduce((n, w) => n + w.total, 0),
        a.percentile,
      )
    )
      return undefined;
    if (windows.length >= 2) return windowLatency(windows, a.percentile);
  }
  return a.percentile > 0 ? orderStatistic(s, t, a.percentile, jobNoise) : undefined;
}

function rateSampler(s: Summary, t: Threshold): Sampler | undefined {
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  if (family === 'request-rate') {
    if (t.metric === '429' && t.tags.op === undefined) {
      const windows = countWindows(
        s.series.length,
        [s.series.r429, s.series.requests],
        firstMeasuredSecond(s),
      );
      if (windows.length >= 2) return windowRatio(windows, 1);
    }
    const ops = selectedOps(s, t).map((op) => s.operations[op]);
    const k = ops.reduce((n, o) => n + (o ? (REQUEST_OUTCOME[t.metric]?.(o) ?? 0) : 0), 0);
    return binomial(
      k,
      ops.reduce((n, o) => n + (o?.requests ?? 0), 0),
    );
  }
  const count = JOB_RATE[t.metric];
  if (family !== 'job-rate' || !count) return undefined;
  const ended = FINAL_STATES.reduce((n, st) => n + s.jobs.byState[st], 0) + s.jobs.lost;
  return binomial(count(s), ended);
}

/** Token timings resample as job timings do (one value per answer, or per token for ITL); goodput as a share. */
function tokenSampler(s: Summary, t: Threshold, jobNoise: number): Sampler | undefined {
  const a = t.aggregation;
  if (a.kind === 'percentile')
    return a.percentile > 0 && a.percentile < 100 ? orderStatistic(s, t, a.percentile, jobNoise) : undefined;
  const gp = s.tokens?.goodput;
  return a.kind === 'rate' && t.metric === 'goodput' && gp !== undefined
    ? binomial(gp.good, gp.judged)
    : undefined;
}

/** How to resample the metric a threshold names on one run; undefined when it cannot be. */
export function samplerFor(s: Summary, t: Threshold, jobNoise: number): Sampler | undefined {
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  if (t.aggregation.kind === 'count') return undefined;
  if (family === 'latency') return latencySampler(s, t, jobNoise);
  if (family === 'tokens') return tokenSampler(s, t, jobNoise);
  if (family === 'job-timing') {
    const a = t.aggregation;
    return a.kind === 'percentile' && a.percentile > 0 && a.percentile < 100
      ? orderStatistic(s, t, a.percentile, jobNoise)
      : undefined;
  }
  if (t.aggregation.kind === 'rate') return rateSampler(s, t);
  return undefined;
}
