/**
 * How many times fell in each bucket of a fixed width, over a range of buckets that grows either
 * way as times come: memory follows the time covered, not how many times were counted.
 */
export class BucketCounts {
  private counts = new Float64Array(0);
  /** The bucket number of counts[0]. */
  private first = 0;

  add(bucket: number): void {
    if (this.counts.length === 0) {
      this.counts = new Float64Array(FIRST_LENGTH);
      this.first = bucket;
    }
    if (bucket < this.first) this.growBefore(bucket);
    else if (bucket >= this.first + this.counts.length) this.growAfter(bucket);
    const i = bucket - this.first;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
  }

  /** A reading of the counts as they are now: how many fell in buckets up to a given one. */
  cumulative(): (bucket: number) => number {
    const sums = new Float64Array(this.counts.length);
    let sum = 0;
    for (let i = 0; i < this.counts.length; i++) sums[i] = sum += this.counts[i] ?? 0;
    const first = this.first;
    return (bucket) => {
      if (sums.length === 0 || bucket < first) return 0;
      return sums[Math.min(sums.length - 1, bucket - first)] ?? 0;
    };
  }

  private growBefore(bucket: number): void {
    const more = Math.max(this.first - bucket, this.counts.length);
    const counts = new Float64Array(this.counts.length + more);
    counts.set(this.counts, more);
    this.counts = counts;
    this.first -= more;
  }

  private growAfter(bucket: number): void {
    const length = Math.max(bucket - this.first + 1, 2 * this.counts.length);
    const counts = new Float64Array(length);
    counts.set(this.counts);
    this.counts = counts;
  }
}

const FIRST_LENGTH = 1024;
