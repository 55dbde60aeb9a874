/**
 * When jobstorm was opening connections for the first time during the run (the pool opens them
 * as requests need them, beyond those opened before time 0): merged spans of run time, so a
 * request's wait can be split into what was jobstorm's (a connection not opened yet) and what was
 * the target's (busy connections). Spans come as each opening ends, so out of order; there are at
 * most as many as the pool has connections, and a request after the last span costs one compare.
 */
export class ConnectionOpenings {
  /** Sorted, non-overlapping [start, end] pairs, flat. */
  private readonly spans: number[] = [];

  add(start: number, end: number): void {
    if (!(end > start)) return;
    const s = this.spans;
    let lo = start;
    let hi = end;
    // Take out every span that touches [lo, hi], widening it to cover them, then put it back in order.
    let i = 0;
    while (i < s.length && (s[i + 1] ?? 0) < lo) i += 2;
    let j = i;
    while (j < s.length && (s[j] ?? 0) <= hi) {
      lo = Math.min(lo, s[j] ?? lo);
      hi = Math.max(hi, s[j + 1] ?? hi);
      j += 2;
    }
    s.splice(i, j - i, lo, hi);
  }

  /** How much of [from, to] some first opening was under way. */
  during(from: number, to: number): number {
    const s = this.spans;
    if (s.length === 0 || to <= (s[0] ?? 0) || from >= (s[s.length - 1] ?? 0)) return 0;
    let total = 0;
    for (let i = 0; i < s.length; i += 2) {
      const a = Math.max(from, s[i] ?? 0);
      const b = Math.min(to, s[i + 1] ?? 0);
      if (b > a) total += b - a;
    }
    return total;
  }
}
