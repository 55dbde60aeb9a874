/**
 * Scheduling lateness (send − intended) in 0.1 ms buckets up to 10 s: enough for a p99 on the
 * progress line and the bench, in constant memory.
 */
export class Lateness {
  private readonly buckets = new Uint32Array(100_001);
  private count = 0;

  add(ms: number): void {
    const b = Math.min(100_000, Math.max(0, Math.round(ms * 10)));
    this.buckets[b] = (this.buckets[b] ?? 0) + 1;
    this.count++;
  }

  /** Empties it for reuse (the generator watch keeps one per second). */
  reset(): void {
    if (this.count === 0) return;
    this.buckets.fill(0);
    this.count = 0;
  }

  p99(): number {
    if (this.count === 0) return 0;
    const target = Math.ceil(this.count * 0.99);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i] ?? 0;
      if (seen >= target) return i / 10;
    }
    return 10_000;
  }
}
