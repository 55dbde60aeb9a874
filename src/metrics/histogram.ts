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
 * `binCount` + 1 log-spaced edges from `lo` to `hi`. A timing in whole units (a resolution of 1 ms
 * or more) gets its edges on whole units, fewer bins where that leaves some empty by construction:
 * a bin narrower than the step the values take would be labelled like its neighbour.
 */
function binEdges(lo: number, hi: number, binCount: number, resolutionMs: number): number[] {
  const ratio = Math.pow(hi / lo, 1 / binCount);
  const edges = Array.from({ length: binCount + 1 }, (_, i) => lo * Math.pow(ratio, i));
  if (resolutionMs < 1) return edges;
  const whole = [...new Set(edges.map((e) => Math.ceil(e / resolutionMs - 1e-9) * resolutionMs))];
  if (whole.length === 1) whole.push((whole[0] ?? lo) + resolutionMs);
  return whole;
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

  /**
   * Counts in log-spaced bins between the smallest and largest recorded values, starting no finer
   * than `resolutionMs` (a timing reported in whole ms starts at 1 ms, not at 1 µs).
   */
  bins(binCount = 30, resolutionMs = 0.001): HistogramBin[] {
    if (this.count === 0) return [];
    return this.binsBetween(this.minMs, this.maxMs, binCount, resolutionMs);
  }

  /** Counts in log-spaced bins from `loMs` to `hiMs` (values outside go to the end bins), so two histograms share bins. */
  binsBetween(loMs: number, hiMs: number, binCount = 30, resolutionMs = 0.001): HistogramBin[] {
    const lo = Math.max(loMs, resolutionMs);
    const hi = Math.max(hiMs, lo * 1.01);
    const edges = binEdges(lo, hi, binCount, resolutionMs);
    const bins = edges
      .slice(0, -1)
      .map((fromMs, i): HistogramBin => ({ fromMs, toMs: edges[i + 1] ?? hi, count: 0 }));
    // Values below the first edge (zeros) are counted in the first bin: it starts at them.
    const first = bins[0];
    if (first && loMs < lo) first.fromMs = Math.max(0, loMs);
    const h = this.h;
    this.eachRecorded((_valueUs, count, index) => {
      const ms = h.highestEquivalentValue(h.valueFromIndex(index)) / 1000;
      let i = bins.length - 1;
      while (i > 0 && (edges[i] ?? 0) > ms) i--;
      const bin = bins[i];
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
