import type { FinalState } from '../metrics/metrics-data.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import type { Outcome } from '../metrics/outcome.js';
import type { OperationSecondView, SecondView } from '../metrics/second-series.js';
import { THRESHOLD_METRICS, type AggregationKind, type MetricSpec } from './threshold-metrics.js';

/**
 * What a reader needs of a parsed threshold (threshold.ts's `Threshold` is one): kept structural,
 * since threshold.ts asks this file whether a threshold can be read per second.
 */
export interface ReadableThreshold {
  metric: string;
  tags: Readonly<Record<string, string>>;
  aggregation: { kind: AggregationKind; percentile?: number };
  windowS?: number;
}

type Threshold = ReadableThreshold;

/**
 * What one second gives a threshold judged per window: a count over a base (a rate's numerator
 * and denominator; a count or rps uses `count` alone) or, for a percentile, histogram buckets.
 * Every part is a sum, so a window is the sum of its seconds and seconds merged from shards add.
 */
export interface SecondSample {
  count: number;
  base: number;
  /** `SparseHistogram` bucket index → count; negative counts take values off (unanswered requests). */
  buckets?: [number, number][];
}

export type SecondReader = (second: SecondView) => SecondSample;

type Family = MetricSpec['family'];

/** A reader for the threshold, or why the per-second data cannot judge it. */
type ReaderFor = (t: Threshold) => SecondReader | string;

const JOB_STATE: Readonly<Record<string, FinalState>> = {
  completed: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  timed_out: 'TIMED_OUT',
};

const NOT_KEPT = 'is not kept per second';

/** The operations a latency or request-rate threshold reads: its own metric's, or `{op=...}`, or all. */
function operations(t: Threshold, second: SecondView): OperationSecondView[] {
  const spec = THRESHOLD_METRICS.get(t.metric);
  const only =
    spec?.family === 'latency' && t.metric !== 'latency' && t.metric !== 'requests' ? t.metric : t.tags.op;
  if (only !== undefined) {
    const o = second.ops.get(only);
    return o ? [o] : [];
  }
  return [...second.ops.values()];
}

function requestsOf(ops: OperationSecondView[], outcome?: Outcome): number {
  let n = 0;
  for (const o of ops) n += outcome === undefined ? o.requests : (o.outcomes[outcome] ?? 0);
  return n;
}

/** Answers only, as the whole-run percentile reads them: every request's bucket, less the unanswered ones'. */
function answeredBuckets(ops: OperationSecondView[]): SecondSample {
  const buckets: [number, number][] = [];
  let count = 0;
  for (const o of ops) {
    for (const b of o.latency.buckets()) buckets.push(b);
    for (const [i, c] of o.unanswered?.buckets() ?? []) buckets.push([i, -c]);
    count += o.requests - (o.outcomes.error ?? 0);
  }
  return { count, base: count, buckets };
}

function latencyReader(t: Threshold): SecondReader | string {
  if (t.tags.from === 'sent') return `latency from the send (from=sent) ${NOT_KEPT}; drop the tag`;
  const a = t.aggregation;
  if (a.kind === 'percentile') {
    if ((a.percentile ?? 0) < 0) return `mean ${NOT_KEPT}; use a percentile (p50) instead`;
    if (t.tags.status !== undefined) return `a percentile of one status ${NOT_KEPT}; drop {status=...}`;
    return (second) => answeredBuckets(operations(t, second));
  }
  const status = t.tags.status as Outcome | undefined;
  return (second) => {
    const n = requestsOf(operations(t, second), status);
    return { count: n, base: n };
  };
}

function requestRateReader(t: Threshold): SecondReader {
  const outcome: Outcome = t.metric === 'errors' ? 'error' : (t.metric as Outcome);
  return (second) => {
    const ops = operations(t, second);
    return { count: requestsOf(ops, outcome), base: requestsOf(ops) };
  };
}

function jobRateReader(t: Threshold): SecondReader | string {
  const state = JOB_STATE[t.metric];
  if (state === undefined) return `"${t.metric}" ${NOT_KEPT}`;
  return (second) => ({
    count: second.finals[state],
    base: FINAL_STATES.reduce((n, s) => n + second.finals[s], 0),
  });
}

function counterReader(t: Threshold): SecondReader | string {
  if (t.metric === 'jobs') return (second) => ({ count: second.submitted, base: second.submitted });
  if (t.metric === 'dropped') return (second) => ({ count: second.dropped, base: second.dropped });
  return `"${t.metric}" ${NOT_KEPT}`;
}

/** Which metrics a window (or a live judge) can read, by family: one reader each. */
const READERS: Readonly<Record<Family, ReaderFor>> = {
  latency: latencyReader,
  'request-rate': requestRateReader,
  'job-rate': jobRateReader,
  counter: counterReader,
  'job-timing': (t) => `job timings (${t.metric}) are ${NOT_KEPT.replace('is ', '')}`,
  violations: () => `violations are ${NOT_KEPT.replace('is ', '')}`,
  scaling: (t) => `the scaling figure ${t.metric} is a whole-run figure, ${NOT_KEPT}`,
  tokens: (t) => `the token figure ${t.metric} is a whole-run figure, ${NOT_KEPT}`,
};

/** The threshold's per-second reader, or why its metric cannot be judged per window or live. */
export function secondReader(t: Threshold): SecondReader | string {
  const spec = THRESHOLD_METRICS.get(t.metric);
  const family: Family = spec?.family ?? 'violations';
  return READERS[family](t);
}

/** Why a windowed or abortOnFail threshold cannot be judged from the per-second data, if it cannot. */
export function perSecondProblem(t: Threshold): string | undefined {
  const r = secondReader(t);
  if (typeof r !== 'string') return undefined;
  const why = t.windowS !== undefined ? 'over a window' : 'live (abortOnFail)';
  return `cannot be judged ${why}: ${r}; windows and live judging read the per-second series (latency percentiles, counts and rps of requests; rates of 429, 2xx, 4xx, 5xx, errors; jobs, dropped, and completed/failed/cancelled/timed_out rates)`;
}
