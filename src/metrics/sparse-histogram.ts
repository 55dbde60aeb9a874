/**
 * A small log-linear histogram for the per-second series: HDR's bucketing with 32 sub-buckets per
 * power of two (at most ~3% relative error, plenty for a chart), kept sparse. A dense HDR array
 * would cost 13–95 KB per operation per second, and HDR's packed arrays were too slow to merge and
 * query thousands of times per report. Values are whole microseconds below 2^32 (~71 min), handled
 * with integer arithmetic so merges are exact.
 *
 * A live histogram is a Map; `compact()` turns a settled one into a sorted typed array of
 * (index, count) pairs, a fraction of the Map's size, which is what keeps a long run's series small.
 */
const SUB_BITS = 5;
const SUB_COUNT = 1 << SUB_BITS;
const MAX_US = 0xffffffff;

function indexOf(us: number): number {
  if (us < 2 * SUB_COUNT) return us;
  const exponent = 31 - Math.clz32(us);
  const shift = exponent - SUB_BITS;
  return shift * SUB_COUNT + (us >>> shift);
}

/** The highest value in the bucket, as HDR reports percentiles. */
function highestOf(index: number): number {
  if (index < 2 * SUB_COUNT) return index;
  const shift = Math.floor(index / SUB_COUNT) - 1;
  const mantissa = index - shift * SUB_COUNT;
  return (mantissa + 1) * 2 ** shift - 1;
}

export class SparseHistogram {
  private live: Map<number, number> | undefined = new Map();
  /** Sorted pairs [index, count, ...] once compacted; a second of one operation never nears 2^32. */
  private packed: Uint32Array | undefined;
  private total = 0;
  /** The last encoding, until the next write: a second that is over is encoded once, not at every live summary. */
  private encoded: string | undefined;

  recordMs(ms: number): void {
    const us = Math.min(Math.max(Math.round(ms * 1000), 0), MAX_US);
    this.add(indexOf(us), 1);
  }

  merge(other: SparseHistogram): void {
    for (const [i, c] of other.entries()) this.add(i, c);
  }

  get count(): number {
    return this.total;
  }

  /** Shrinks a histogram that will rarely change again; later writes expand it transparently. */
  compact(): void {
    if (!this.live) return;
    const pairs = this.entries();
    const packed = new Uint32Array(pairs.length * 2);
    pairs.forEach(([i, c], k) => {
      packed[2 * k] = i;
      packed[2 * k + 1] = c;
    });
    this.packed = packed;
    this.live = undefined;
  }

  /** Nearest-rank percentile in ms (0 when empty), like HDR's getValueAtPercentile. */
  percentileMs(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * this.total));
    let seen = 0;
    let last = 0;
    for (const [i, c] of this.entries()) {
      seen += c;
      last = i;
      if (seen >= rank) break;
    }
    return highestOf(last) / 1000;
  }

  /** `index.count` pairs in base 36, sorted: short, and the same for the same contents. */
  encode(): string {
    this.encoded ??= this.entries()
      .map(([i, c]) => `${i.toString(36)}.${c.toString(36)}`)
      .join(',');
    return this.encoded;
  }

  static decode(encoded: string): SparseHistogram {
    const h = new SparseHistogram();
    if (encoded === '') return h;
    for (const pair of encoded.split(',')) {
      const [i, c] = pair.split('.');
      const index = parseInt(i ?? '', 36);
      const count = parseInt(c ?? '', 36);
      if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 0) {
        throw new Error(`bad per-second histogram entry "${pair}"`);
      }
      h.add(index, count);
    }
    return h;
  }

  /** (bucket index, count) pairs sorted by index, for resampling (src/compare). */
  buckets(): [number, number][] {
    return this.entries();
  }

  /** The value (ms) a bucket reports, as `percentileMs` does. */
  static bucketMs(index: number): number {
    return highestOf(index) / 1000;
  }

  /** Sorted by bucket index. */
  private entries(): [number, number][] {
    if (this.live) return [...this.live.entries()].sort((a, b) => a[0] - b[0]);
    const out: [number, number][] = [];
    const p = this.packed ?? new Uint32Array(0);
    for (let k = 0; k < p.length; k += 2) out.push([p[k] ?? 0, p[k + 1] ?? 0]);
    return out;
  }

  private add(index: number, count: number): void {
    if (!this.live) this.live = new Map(this.entries());
    this.packed = undefined;
    this.encoded = undefined;
    this.live.set(index, (this.live.get(index) ?? 0) + count);
    this.total += count;
  }
}
