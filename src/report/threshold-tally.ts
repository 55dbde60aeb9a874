import { SparseHistogram } from '../metrics/sparse-histogram.js';
import type { Aggregation } from './threshold.js';
import type { SecondSample } from './threshold-readers.js';

/**
 * The seconds of one window, summed: seconds come in at the new end and leave at the old one, so
 * sliding a window by a second costs two seconds' worth of work, whatever its length. A second
 * leaves exactly as it came (the sample is kept), so a late record cannot unbalance the sums.
 */
export class ThresholdTally {
  private readonly samples: SecondSample[] = [];
  private count = 0;
  private base = 0;
  private readonly buckets = new Map<number, number>();
  private total = 0;

  /** Seconds in the window now. */
  get seconds(): number {
    return this.samples.length;
  }

  push(sample: SecondSample): void {
    this.samples.push(sample);
    this.apply(sample, 1);
  }

  /** The oldest second leaves the window. */
  shift(): void {
    const sample = this.samples.shift();
    if (sample) this.apply(sample, -1);
  }

  /** The window's value in the threshold's unit, or null when it has nothing to judge. */
  value(a: Aggregation): number | null {
    switch (a.kind) {
      case 'count':
        return this.count;
      case 'rate':
        return this.base === 0 ? null : this.count / this.base;
      case 'rps':
        return this.seconds === 0 ? null : this.count / this.seconds;
      case 'percentile':
        return this.percentileMs(a.percentile);
      case 'value':
        // No per-second reader exists for a figure (threshold-readers.ts refuses it).
        return null;
    }
  }

  /** Nearest rank over the buckets, as `SparseHistogram.percentileMs` reads one second. */
  private percentileMs(p: number): number | null {
    if (this.total <= 0) return null;
    const rank = Math.max(1, Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * this.total));
    const indices = [...this.buckets.keys()].sort((x, y) => x - y);
    let seen = 0;
    let last = 0;
    for (const i of indices) {
      seen += this.buckets.get(i) ?? 0;
      last = i;
      if (seen >= rank) break;
    }
    return SparseHistogram.bucketMs(last);
  }

  private apply(s: SecondSample, sign: 1 | -1): void {
    this.count += sign * s.count;
    this.base += sign * s.base;
    for (const [i, c] of s.buckets ?? []) {
      const n = (this.buckets.get(i) ?? 0) + sign * c;
      this.total += sign * c;
      if (n === 0) this.buckets.delete(i);
      else this.buckets.set(i, n);
    }
  }
}
