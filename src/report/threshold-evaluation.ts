import { LatencyHistogram } from '../metrics/histogram.js';
import { FINAL_STATES, type FinalState } from '../metrics/metrics-data.js';
import { OUTCOMES, type Outcome } from '../metrics/outcome.js';
import { SecondSeries, type SecondSource } from '../metrics/second-series.js';
import { measuredMs } from './measured-time.js';
import { scalingValue } from './scaling-threshold.js';
import { tokenReading } from './token-threshold.js';
import { secondReader } from './threshold-readers.js';
import { judgeWindows, windowFrame } from './threshold-windows.js';
import type { OperationSummary, Summary, ThresholdResult } from './summary.js';
import { compare, type Aggregation, type Threshold } from './threshold.js';
import { THRESHOLD_METRICS, VIOLATION_PREFIX } from './threshold-metrics.js';
import { globToRegExp } from '../core/check-glob.js';
import { newCount } from './known-lines.js';

function aggregateHistogram(h: LatencyHistogram, a: Aggregation): number | null {
  if (a.kind === 'count') return h.count;
  if (a.kind !== 'percentile' || h.count === 0) return null;
  if (a.percentile < 0) return h.meanMs;
  if (a.percentile === 100) return h.maxMs;
  return a.percentile === 0 ? h.minMs : h.percentileMs(a.percentile);
}

function selectedOperations(s: Summary, t: Threshold): [string, OperationSummary][] {
  const only =
    THRESHOLD_METRICS.get(t.metric)?.family === 'latency' && !['latency', 'requests'].includes(t.metric)
      ? t.metric
      : t.tags.op;
  return Object.entries(s.operations).filter(([op]) => only === undefined || op === only);
}

function requestHistogram(s: Summary, t: Threshold): LatencyHistogram {
  const h = LatencyHistogram.create();
  const from = t.tags.from === 'sent' ? 'sent' : 'intended';
  // A request that got no answer (refused, reset, timed out) has no latency of the target: a
  // percentile over answers only, unless the threshold asks for errors by name.
  const answersOnly = t.aggregation.kind === 'percentile' && t.tags.status === undefined;
  for (const [, op] of selectedOperations(s, t)) {
    for (const name of OUTCOMES) {
      const o = op.outcomes[name];
      if (answersOnly && name === 'error') continue;
      if (o && (t.tags.status === undefined || t.tags.status === name))
        h.merge(LatencyHistogram.decode(o[from]));
    }
  }
  return h;
}

function requestCount(s: Summary, t: Threshold, outcome?: 'errors' | Outcome): number {
  let n = 0;
  for (const [, op] of selectedOperations(s, t)) {
    if (outcome === undefined) n += op.requests;
    else if (outcome === 'errors') n += op.outcomes.error?.count ?? 0;
    else n += op.outcomes[outcome]?.count ?? 0;
  }
  return n;
}

function jobTiming(s: Summary, t: Threshold): LatencyHistogram {
  if (t.metric === 'e2e') {
    const h = LatencyHistogram.create();
    for (const state of FINAL_STATES) {
      if (t.tags.status === undefined || t.tags.status === state)
        h.merge(LatencyHistogram.decode(s.jobs.e2e[state].histogram));
    }
    return h;
  }
  const key = t.metric as 'delayTime' | 'executionTime' | 'firstChunk';
  return LatencyHistogram.decode(s.jobs[key].histogram);
}

const JOB_STATE: Record<string, FinalState> = {
  completed: 'COMPLETED',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  timed_out: 'TIMED_OUT',
};

function jobCount(s: Summary, metric: string): number {
  const state = JOB_STATE[metric];
  if (state) return s.jobs.byState[state];
  switch (metric) {
    case 'jobs':
      return s.jobs.submitted;
    case 'lost':
      return s.jobs.lost;
    case 'unfinished':
      return s.jobs.unfinished;
    case 'retried':
      return s.jobs.retried;
    case 'dropped':
      return s.dropped.total;
    case 'webhooks':
      return s.webhooks.received;
    default:
      return 0;
  }
}

/**
 * Findings that fail the run: a known deviation's (`--known`) are shown and counted in the reports,
 * but a threshold on violations does not count them, or a nightly `violations == 0` would fail on
 * what the team already accepted. `jobstorm compare` counts them (it reads summaries as if without).
 */
function violationCount(s: Summary, t: Threshold): number {
  const pattern = t.metric.startsWith(VIOLATION_PREFIX)
    ? globToRegExp(t.metric.slice(VIOLATION_PREFIX.length))
    : undefined;
  return s.violations
    .filter(
      (v) =>
        (pattern === undefined || pattern.test(v.id)) &&
        (t.tags.severity === undefined || v.severity === t.tags.severity),
    )
    .reduce((n, v) => n + newCount(v), 0);
}

/**
 * The run-wide histogram a latency or job-timing threshold reads (merged over its selection), or
 * undefined for other metrics; src/compare resamples it.
 */
export function thresholdHistogram(s: Summary, t: Threshold): LatencyHistogram | undefined {
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  if (family === 'latency') return requestHistogram(s, t);
  if (family === 'tokens') {
    const reading = tokenReading(s, t).value;
    return reading instanceof LatencyHistogram ? reading : undefined;
  }
  return family === 'job-timing' ? jobTiming(s, t) : undefined;
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

function valueOf(s: Summary, t: Threshold): number | null {
  if (t.metric === 'violations' || t.metric.startsWith(VIOLATION_PREFIX)) return violationCount(s, t);
  const family = THRESHOLD_METRICS.get(t.metric)?.family;
  switch (family) {
    case 'latency':
      if (t.aggregation.kind === 'rps')
        return measuredMs(s) > 0 ? requestHistogram(s, t).count / (measuredMs(s) / 1000) : null;
      return aggregateHistogram(requestHistogram(s, t), t.aggregation);
    case 'job-timing':
      return aggregateHistogram(jobTiming(s, t), t.aggregation);
    case 'request-rate': {
      const outcome = t.metric === 'errors' ? 'errors' : (t.metric as Outcome);
      const n = requestCount(s, t, outcome);
      return t.aggregation.kind === 'count' ? n : ratio(n, requestCount(s, t));
    }
    case 'job-rate': {
      const n = jobCount(s, t.metric);
      const ended = FINAL_STATES.reduce((sum, st) => sum + s.jobs.byState[st], 0) + s.jobs.lost;
      return t.aggregation.kind === 'count' ? n : ratio(n, ended);
    }
    case 'counter':
      return jobCount(s, t.metric);
    default:
      return null;
  }
}

/** A windowed threshold: every window judged from the per-second series, and the whole run's value beside. */
function windowedResult(
  t: Threshold & { windowS: number },
  summary: Summary,
  source: SecondSource,
): ThresholdResult {
  const reader = secondReader(t);
  const value = valueOf(summary, t);
  const wholeRun = { value, ok: value !== null && compare(value, t.comparator, t.target) };
  if (typeof reader === 'string')
    return { expression: t.expression, value: null, ok: false, unit: t.unit, wholeRun };
  const judged = judgeWindows(t, reader, source, windowFrame(summary.run.startMs, summary.warmup?.ms));
  return { expression: t.expression, ...judged, unit: t.unit, wholeRun };
}

/** A threshold on a token figure: judged when the run streamed answers it selects, otherwise not evaluated (and why). */
function tokenResult(t: Threshold, summary: Summary): ThresholdResult {
  const reading = tokenReading(summary, t);
  const value =
    reading.value instanceof LatencyHistogram
      ? aggregateHistogram(reading.value, t.aggregation)
      : reading.value;
  return {
    expression: t.expression,
    value,
    ok: value !== null && compare(value, t.comparator, t.target),
    unit: t.unit,
    ...(reading.notEvaluated === undefined ? {} : { notEvaluated: reading.notEvaluated }),
  };
}

/** A threshold on a scaling figure: judged when the figure was measured, otherwise not evaluated (and why). */
function scalingResult(t: Threshold, summary: Summary): ThresholdResult {
  const v = scalingValue(summary, t.metric, t.aggregation);
  return {
    expression: t.expression,
    value: v.value,
    ok: v.value !== null && compare(v.value, t.comparator, t.target),
    unit: t.unit,
    // Absent when judged: a result says it was not evaluated only by having the note.
    ...(v.notEvaluated === undefined ? {} : { notEvaluated: v.notEvaluated }),
  };
}

function isWindowed(t: Threshold): t is Threshold & { windowS: number } {
  return t.windowS !== undefined;
}

/**
 * Evaluates parsed thresholds against a summary. A threshold with no data to judge (p99 of an
 * operation that never ran) fails: a filter that matches nothing must not pass silently. A
 * windowed one is judged over every window of its length (see threshold-windows.ts).
 */
export function evaluateThresholds(thresholds: readonly Threshold[], summary: Summary): ThresholdResult[] {
  let source: SecondSource | undefined;
  return thresholds.map((t) => {
    if (isWindowed(t)) return windowedResult(t, summary, (source ??= SecondSeries.fromJSON(summary.series)));
    const family = THRESHOLD_METRICS.get(t.metric)?.family;
    if (family === 'scaling') return scalingResult(t, summary);
    if (family === 'tokens') return tokenResult(t, summary);
    const value = valueOf(summary, t);
    return {
      expression: t.expression,
      value,
      ok: value !== null && compare(value, t.comparator, t.target),
      unit: t.unit,
    };
  });
}
