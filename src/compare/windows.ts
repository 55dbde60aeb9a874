import { SparseHistogram } from '../metrics/sparse-histogram.js';
import type { Summary } from '../report/summary.js';

/**
 * The per-second series cut into at most MAX_WINDOWS consecutive windows, the units a bootstrap
 * resamples. Whole seconds (or runs of seconds, in a long run) keep the noise that moves a second
 * at a time (a GC pause, a neighbour's burst) inside one unit, which resampling single requests
 * would hide.
 */
export const MAX_WINDOWS = 60;

export interface BucketWindow {
  /** Sparse histogram buckets (SparseHistogram indices) and their counts. */
  index: Int32Array;
  count: Float64Array;
  total: number;
}

function secondsPerWindow(length: number): number {
  return Math.max(1, Math.ceil(length / MAX_WINDOWS));
}

/**
 * The index of the series' first second after the run's warm-up (0 without one): the series keeps
 * the warm-up for the timeline, but what is compared is the measured run, as in its summary.
 */
export function firstMeasuredSecond(s: Pick<Summary, 'run' | 'series' | 'warmup'>): number {
  if (!s.warmup) return 0;
  return Math.min(
    s.series.length,
    Math.max(0, Math.ceil((s.run.startMs + s.warmup.ms) / 1000) - s.series.startSec),
  );
}

/** Latency windows of the named operations (from the intended start); empty windows are left out. */
export function latencyWindows(s: Summary, ops: readonly string[]): BucketWindow[] {
  const from = firstMeasuredSecond(s);
  const per = secondsPerWindow(s.series.length - from);
  const windows: BucketWindow[] = [];
  for (let start = from; start < s.series.length; start += per) {
    const h = new SparseHistogram();
    for (const op of ops) {
      const encoded = s.series.ops[op]?.latency;
      if (!encoded) continue;
      for (let i = start; i < Math.min(start + per, s.series.length); i++)
        h.merge(SparseHistogram.decode(encoded[i] ?? ''));
    }
    if (h.count === 0) continue;
    const buckets = h.buckets();
    windows.push({
      index: Int32Array.from(buckets.map((b) => b[0])),
      count: Float64Array.from(buckets.map((b) => b[1])),
      total: h.count,
    });
  }
  return windows;
}

/** Sums of per-second counts per window, for each of the given columns, from second `from` on. */
export function countWindows(length: number, columns: readonly (readonly number[])[], from = 0): number[][] {
  const per = secondsPerWindow(length - from);
  const out: number[][] = [];
  for (let start = from; start < length; start += per) {
    out.push(
      columns.map((col) => {
        let n = 0;
        for (let i = start; i < Math.min(start + per, length); i++) n += col[i] ?? 0;
        return n;
      }),
    );
  }
  return out;
}
