import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';

/*
 * The edges of both histograms, value by value: empty ones, zeros, the smallest buckets, the bins of
 * the HTML report's bar charts, and histograms written by someone else's configuration.
 */

function latency(values: readonly number[]): LatencyHistogram {
  const h = LatencyHistogram.create();
  for (const v of values) h.recordMs(v);
  return h;
}

/** A histogram in another configuration, encoded as a file from another tool would hold it. */
function foreign(lowest: number, highest: number, digits: 1 | 2 | 3 | 4 | 5, valuesUs: number[]): string {
  const h = hdr.build({
    lowestDiscernibleValue: lowest,
    highestTrackableValue: highest,
    numberOfSignificantValueDigits: digits,
    useWebAssembly: false,
  });
  for (const v of valuesUs) h.recordValue(v);
  return hdr.encodeIntoCompressedBase64(h);
}

/** The configuration an encoded histogram carries. */
function configOf(encoded: string): [number, number, number] {
  const h = hdr.decodeFromCompressedBase64(encoded, 32, false);
  if (!(h instanceof hdr.JsHistogram)) throw new TypeError('a JS histogram was asked for');
  return [h.lowestDiscernibleValue, h.highestTrackableValue, h.numberOfSignificantValueDigits];
}

describe('LatencyHistogram at its edges', () => {
  it('an empty one has a mean of 0 and no bins', () => {
    const h = LatencyHistogram.create();
    expect(h.meanMs).toBe(0);
    expect(h.bins()).toEqual([]);
    expect(h.bins(5)).toEqual([]);
  });

  it('a recorded 0 is the minimum in a summary, not the next value up', () => {
    const s = latency([0, 5, 9]).summaryMs([50]);
    expect(s.min).toBe(0);
    expect(latency([0, 5, 9]).minMs).toBe(0);
  });

  it('binsBetween spaces its bins by a constant ratio from lo to hi', () => {
    const bins = latency([2, 20, 200]).binsBetween(1, 1000, 3);
    expect(bins.map((b) => [b.fromMs, b.toMs])).toEqual([
      [1, expect.closeTo(10, 9)],
      [expect.closeTo(10, 9), expect.closeTo(100, 9)],
      [expect.closeTo(100, 9), expect.closeTo(1000, 9)],
    ]);
    expect(bins.map((b) => b.count)).toEqual([1, 1, 1]);
  });

  it('puts each value in its bin by its bucket, values outside lo..hi in the end bins', () => {
    const h = latency([0.5, 2, 3, 20, 30, 40, 200, 5000]);
    expect(h.binsBetween(1, 1000, 3).map((b) => b.count)).toEqual([3, 3, 2]);
    expect(h.binsBetween(10, 100, 1).map((b) => b.count)).toEqual([8]);
  });

  it('bins() spans the smallest to the largest value', () => {
    const bins = latency([1, 1000]).bins(3);
    expect(bins[0]?.fromMs).toBe(1);
    expect(bins[2]?.toMs).toBeCloseTo(1000, 6);
    expect(bins.map((b) => b.count)).toEqual([1, 0, 1]);
  });

  it('a lo at or above hi still makes bins: up to 1 % above lo', () => {
    const bins = latency([5]).binsBetween(5, 5, 2);
    expect(bins[0]?.fromMs).toBe(5);
    expect(bins[1]?.toMs).toBeCloseTo(5.05, 9);
    expect(bins.map((b) => b.count)).toEqual([1, 0]);
  });

  it('lo is at least 1 µs; the first bin, which holds the zeros, starts at them', () => {
    const bins = latency([0, 0.002]).binsBetween(0, 0.01, 2);
    expect(bins[0]?.fromMs).toBe(0);
    expect(bins[0]?.toMs).toBeCloseTo(Math.sqrt(0.001 * 0.01), 12);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(2);
  });
});

describe('LatencyHistogram.decode of another configuration', () => {
  it('keeps ours as it is', () => {
    const ours = latency([1.5, 2.5]).encode();
    expect(configOf(ours)).toEqual([1, 3_600_000_000, 3]);
    expect(LatencyHistogram.decode(ours).encode()).toBe(ours);
  });

  it.each([
    ['a lower ceiling', 1, 10_000_000, 3],
    ['two significant digits', 1, 3_600_000_000, 2],
    ['a coarser unit', 1000, 3_600_000_000, 3],
  ] as const)('re-homes one with %s into ours, so it takes values to an hour', (_name, lo, hi, digits) => {
    const encoded = foreign(lo, hi, digits, [2_000_000, 3_000_000]);
    const h = LatencyHistogram.decode(encoded);
    expect(configOf(h.encode())).toEqual([1, 3_600_000_000, 3]);
    h.recordMs(3_000_000);
    expect(h.count).toBe(3);
    expect(h.maxMs).toBeGreaterThan(2_990_000);
  });
});

describe('SparseHistogram at its edges', () => {
  it('the first 64 µs are a bucket each, and 64 µs starts buckets two wide', () => {
    for (const us of [0, 1, 7, 31, 32, 63]) {
      const h = new SparseHistogram();
      h.recordMs(us / 1000);
      expect(h.percentileMs(50)).toBe(us / 1000);
      expect(h.buckets()).toEqual([[us, 1]]);
    }
    const h = new SparseHistogram();
    h.recordMs(0.064);
    expect(h.percentileMs(50)).toBe(0.065);
    expect(SparseHistogram.bucketMs(64)).toBe(0.065);
    expect(SparseHistogram.bucketMs(63)).toBe(0.063);
    expect(SparseHistogram.bucketMs(5)).toBe(0.005);
  });

  it('decode refuses a negative count and takes a zero one', () => {
    expect(() => SparseHistogram.decode('5.-1')).toThrow(/bad per-second histogram entry "5.-1"/);
    const h = SparseHistogram.decode('5.0,6.2');
    expect(h.count).toBe(2);
    expect(h.percentileMs(1)).toBe(0.006);
  });
});
