import { NO_HEALTH, type ScalingFigureName, type ScalingFigures } from '../metrics/scaling-figures.js';
import type { Summary } from './summary.js';
import type { Aggregation } from './threshold.js';

/** A scaling figure's value for a threshold, or null and why it was not measured. */
export type ScalingValue =
  { value: number; notEvaluated?: undefined } | { value: null; notEvaluated: string };

/** Nearest rank, as the latency histograms read a percentile; -1 is the mean. */
function percentileOf(sorted: readonly number[], p: number): number {
  if (p < 0) return sorted.reduce((n, x) => n + x, 0) / sorted.length;
  const rank = Math.max(1, Math.ceil((Math.min(p, 100) / 100) * sorted.length));
  return sorted[rank - 1] ?? 0;
}

const FIGURE: Readonly<
  Record<Exclude<ScalingFigureName, 'scaleUpLag'>, (f: ScalingFigures) => number | null>
> = {
  drainTime: (f) => f.drainMs,
  coldStartShare: (f) => f.coldStartShare,
  peakWorkers: (f) => f.peakWorkers,
  meanWorkers: (f) => f.meanWorkers,
  workerSeconds: (f) => f.workerSeconds,
  cost: (f) => f.cost,
  costPer1kJobs: (f) => f.costPer1kJobs,
};

function isFigure(name: string): name is ScalingFigureName {
  return name === 'scaleUpLag' || name in FIGURE;
}

/**
 * The value a threshold on a scaling figure compares. A figure not measured (no `/health`, no
 * `initializing` field, no price...) gives no value and the reason: not evaluated, never passed.
 */
export function scalingValue(s: Summary, metric: string, a: Aggregation): ScalingValue {
  const f = s.scaling?.figures;
  if (!isFigure(metric)) return { value: null, notEvaluated: `"${metric}" is not a scaling figure` };
  const why = f?.notMeasured[metric];
  if (metric === 'scaleUpLag') {
    const lags = f?.scaleUpLagMs ?? [];
    if (a.kind === 'count' && f) return { value: lags.length };
    if (a.kind === 'percentile' && lags.length > 0) return { value: percentileOf(lags, a.percentile) };
    return { value: null, notEvaluated: why ?? NO_HEALTH };
  }
  const value = f ? FIGURE[metric](f) : null;
  return value === null ? { value: null, notEvaluated: why ?? NO_HEALTH } : { value };
}
