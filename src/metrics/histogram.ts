import * as hdr from 'hdr-histogram-js';

/**
 * 1 µs to 1 h, 3 significant digits, 32-bit counts: the run-wide latency histograms. (The per-second
 * series uses the lighter SparseHistogram.)
 */
const LOWEST_US = 1;
const HIGHEST_US = 3_600_000_000;

function create(): hdr.JsHistogram {
  const h = hdr.build({
    lowestDiscernibleValue: LOWEST_US,
    highestTrackableValue: HIGHEST_US,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
    autoResize: false,
    // JS mode: WASM is faster per value but needs explicit destroy() and async init, and at a few
    // thousand records a second recording is far from the bottleneck (see bench/metrics-memory.ts).
    useWebAssembly: false,
  });
  // The walks below read the counts directly, which only the JS histograms allow.
  if (!(h instanceof hdr.JsHistogram))
    throw new TypeError('hdr-histogram-js built a WebAssembly histogram; a JS one was asked for');
  return h;
}

/** A count of values in `[fromMs, toMs)`, for bar charts. */
export interface HistogramBin {
  fromMs: number;
  toMs: number;
  count: number;
}

/**
 * A latency histogram with a millisecond API over a microsecond HDR histogram, so callers pass the
 * record's own units while sub-millisecond loopback latencies keep their resolution.
 */
export class LatencyHistogram {
  private constructor(private readonly h: hdr.JsHistogram) {}

  static create(): LatencyHistogram {
    return new LatencyHistogram(create());
  }

  /** `''` decodes to an empty histogram: empty ones are written as `''` to keep files small. */
  static decode(encoded: string): LatencyHistogram {
    if (encoded === '') return LatencyHistogram.create();
    const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
    // Ours as encoded: used as it is. Anything else is re-homed into our configuration, so later
    // merges never resize.
    if (!(decoded instanceof hdr.JsHistogram))
      throw new TypeError('hdr-histogram-js decoded a WebAssembly histogram; a JS one was asked for');
    if (
      decoded.highestTrackableValue === HIGHEST_US &&
      decoded.numberOfSignificantValueDigits === 3 &&
      !decoded.autoResize &&
      decoded.lowestDiscernibleValue === LOWEST_US
    ) {
      return new LatencyHistogram(decoded);
    }
    const target = LatencyHistogram.create();
    target.h.add(decoded);
    return target;
  }

  /** Negative values (clock skew) count as 0; values past an hour count as an hour. */
  recordMs(ms: number): void {
    const us = Math.round(ms * 1000);
    this.h.recordValue(Math.min(Math.max(us, 0), HIGHEST_US));
  }

  merge(other: LatencyHistogram): void {
    if (other.count > 0) this.h.add(other.h);
  }

  get count(): number {
    return this.h.totalCount;
  }

  percentileMs(p: number): number {
    return this.count === 0 ? 0 : this.h.getValueAtPercentile(p) / 1000;
  }

  get maxMs(): number {
    return this.count === 0 ? 0 : this.h.maxValue / 1000;
  }

  get minMs(): number {
    if (this.count === 0) return 0;
    // minNonZeroValue ignores recorded zeros; the 0th percentile does not.
    return this.h.getValueAtPercentile(0) / 1000;
  }

  /**
   * Min, mean and the given percentiles (ms) in one walk of the counts, each as `percentileMs`
   * (hdr's getValueAtPercentile) gives it: a summary asks for five per histogram, and each of
   * hdr's walks starts again from the first bucket.
   */
  summaryMs(percentiles: readonly number[]): { min: number; mean: number; at: number[] } {
    const n = this.count;
    if (n === 0) return { min: 0, mean: 0, at: percentiles.map(() => 0) };
    const h = this.h;
    // The count each percentile is reached at, rounded as getValueAtPercentile rounds it.
    const wanted = percentiles.map((p) => {
      const fp = (Math.min(p, 100) / 100) * n;
      return Math.max(Math.ceil(fp - (fp > 0 ? Math.pow(2, Math.floor(Math.log2(fp)) - 52) : 0)), 1);
    });
    const at = percentiles.map(() => 0);
    let min = -1;
    let total = 0;
    let seen = 0;
    for (let i = 0; i < h.countsArrayLength && seen < n; i++) {
      const c = h.getCountAtIndex(i);
      if (c === 0) continue;
      const value = h.valueFromIndex(i);
      if (min < 0) min = h.lowestEquivalentValue(value);
      total += h.medianEquivalentValue(value) * c;
      const before = seen;
      seen += c;
      for (let k = 0; k < wanted.length; k++) {
        const w = wanted[k] ?? 1;
        if (w > before && w <= seen)
          at[k] =
            (percentiles[k] === 0 ? h.lowestEquivalentValue(value) : h.highestEquivalentValue(value)) / 1000;
      }
    }
    return { min: Math.max(min, 0) / 1000, mean: total / n / 1000, at };
  }

  get meanMs(): number {
    const n = this.count;
    if (n === 0) return 0;
    let total = 0;
    this.eachRecorded((valueUs, count) => (total += valueUs * count));
    return total / n / 1000;
  }

  encode(): string {
    return this.count === 0 ? '' : hdr.encodeIntoCompressedBase64(this.h);
  }

  /** Counts in log-spaced bins between the smallest and largest recorded values. */
  bins(binCount = 30): HistogramBin[] {
    if (this.count === 0) return [];
    return this.binsBetween(this.minMs, this.maxMs, binCount);
  }

  /** Counts in log-spaced bins from `loMs` to `hiMs` (values outside go to the end bins), so two histograms share bins. */
  binsBetween(loMs: number, hiMs: number, binCount = 30): HistogramBin[] {
    const lo = Math.max(loMs, 0.001);
    const hi = Math.max(hiMs, lo * 1.01);
    const ratio = Math.pow(hi / lo, 1 / binCount);
    const bins: HistogramBin[] = [];
    for (let i = 0; i < binCount; i++)
      bins.push({ fromMs: lo * Math.pow(ratio, i), toMs: lo * Math.pow(ratio, i + 1), count: 0 });
    const h = this.h;
    this.eachRecorded((_valueUs, count, index) => {
      const ms = Math.max(h.highestEquivalentValue(h.valueFromIndex(index)) / 1000, lo);
      const bin = bins[Math.min(binCount - 1, Math.max(0, Math.floor(Math.log(ms / lo) / Math.log(ratio))))];
      if (bin) bin.count += count;
    });
    return bins;
  }

  /**
   * Every non-empty bucket, smallest first, as its median equivalent value (µs) and count. A plain
   * walk of the counts: hdr's recordedValuesIterator (behind its `mean`) costs five times as much,
   * and summaries read dozens of histograms at the end of every run.
   */
  private eachRecorded(fn: (valueUs: number, count: number, index: number) => void): void {
    const h = this.h;
    const n = h.totalCount;
    let seen = 0;
    for (let i = 0; i < h.countsArrayLength && seen < n; i++) {
      const c = h.getCountAtIndex(i);
      if (c === 0) continue;
      seen += c;
      fn(h.medianEquivalentValue(h.valueFromIndex(i)), c, i);
    }
  }
}
