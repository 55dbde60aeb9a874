import type { LabelKey, MetricSpec } from './metric-catalog.js';

/** A point's own labels; an absent key means the label is not set. */
export type Labels = Partial<Record<LabelKey, string>>;

export interface ValuePoint {
  labels: Labels;
  value: number;
}

export interface HistogramPoint {
  labels: Labels;
  /** Inclusive upper bounds in seconds; `counts` has one more entry (+Inf), not cumulative. */
  bounds: readonly number[];
  counts: readonly number[];
  sum: number;
  count: number;
}

export interface FamilySnapshot {
  spec: MetricSpec;
  values: ValuePoint[];
  histograms: HistogramPoint[];
}

/**
 * Everything one flush sends, taken at once so that every output sends the same numbers. Counters
 * and histograms are cumulative since `startMs`: a flush that never arrives loses resolution, not
 * counts, because the next one carries the totals.
 */
export interface MetricSnapshot {
  /** Wall clock (epoch ms) when it was taken. */
  atMs: number;
  /** Wall clock (epoch ms) when counting began. */
  startMs: number;
  /** Labels on every series: run id, scenario, and the scenario's tags. */
  common: Readonly<Record<string, string>>;
  families: FamilySnapshot[];
}
