/**
 * Upper bounds (seconds, inclusive, `le` in Prometheus) of the request-latency buckets: a 1-2-5
 * ladder from 0.5 ms to 60 s, fine enough that `histogram_quantile` lands within a bucket of the
 * report's HDR percentile, coarse enough to keep the series count small.
 */
export const REQUEST_BUCKETS_S: readonly number[] = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60,
];

/** Job times (queue delay, execution, end to end) run from milliseconds to an hour. */
export const JOB_BUCKETS_S: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 60, 120, 300, 600, 1800, 3600,
];

/**
 * A fixed-bucket histogram, the shape both remote write (classic `_bucket{le}` series) and OTLP
 * (explicit-bucket histograms) carry. Recording is a binary search and an increment: no allocation.
 */
export class BucketHistogram {
  /** Per bucket, not cumulative; the last one is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  record(value: number): void {
    const bounds = this.bounds;
    let lo = 0;
    let hi = bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (value <= (bounds[mid] ?? Infinity)) hi = mid;
      else lo = mid + 1;
    }
    this.counts[lo] = (this.counts[lo] ?? 0) + 1;
    this.sum += value;
    this.count++;
  }
}
