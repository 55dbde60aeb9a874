/**
 * The bucket a quantile falls in, found as Prometheus' histogram_quantile finds it (the first bucket
 * whose cumulative count reaches q × total). `counts` are per bucket, the last one +Inf.
 */
export function quantileBucket(
  bounds: readonly number[],
  counts: readonly number[],
  q: number,
): { lo: number; hi: number } {
  const total = counts.reduce((a, b) => a + b, 0);
  const rank = q * total;
  let cumulative = 0;
  for (let i = 0; i < counts.length; i++) {
    cumulative += counts[i] ?? 0;
    if (cumulative >= rank) return { lo: i === 0 ? 0 : (bounds[i - 1] ?? 0), hi: bounds[i] ?? Infinity };
  }
  return { lo: bounds.at(-1) ?? 0, hi: Infinity };
}

/** HDR percentiles carry 3 significant digits: a value at a bucket edge may sit 0.1 % past it. */
export function withinBucket(valueS: number, bucket: { lo: number; hi: number }): boolean {
  return valueS >= bucket.lo * 0.998 && valueS <= bucket.hi * 1.002;
}
