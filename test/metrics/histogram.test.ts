import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';

function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Long-tailed latencies in ms, from 50 µs to tens of seconds, with µs fractions. */
function latencies(n: number, seed: number): number[] {
  const rnd = prng(seed);
  return Array.from(
    { length: n },
    () => Math.round(Math.exp(rnd() * 6 - 1) * (rnd() < 0.02 ? 200 : 1) * 1000) / 1000 + 0.05,
  );
}

/** Nearest rank, the definition HdrHistogram uses (rounded so 99.9% of 20,000 is rank 19,980). */
function exactPercentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil(Math.round((p / 100) * sorted.length * 1e6) / 1e6));
  return sorted[rank - 1] ?? NaN;
}

describe('LatencyHistogram (HDR, 1 µs – 1 h, 3 significant digits)', () => {
  const values = latencies(20_000, 7);
  const sorted = [...values].sort((a, b) => a - b);
  const h = LatencyHistogram.create();
  for (const v of values) h.recordMs(v);

  it.each([0, 50, 90, 95, 99, 99.9, 100])(
    'p%s agrees with a brute-force sort within the histogram precision',
    (p) => {
      const exact = exactPercentile(sorted, p === 0 ? 0.0001 : p);
      const got = p === 100 ? h.maxMs : p === 0 ? h.minMs : h.percentileMs(p);
      // 3 significant digits: within 0.1% of the value, plus the 1 µs unit of recording.
      expect(Math.abs(got - exact)).toBeLessThanOrEqual(exact * 0.001 + 0.001);
    },
  );

  it('counts every value and keeps the mean', () => {
    expect(h.count).toBe(values.length);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(h.meanMs - mean) / mean).toBeLessThan(0.001);
  });

  it('merging two halves equals recording everything, and survives encode/decode unchanged', () => {
    const a = LatencyHistogram.create();
    const b = LatencyHistogram.create();
    values.forEach((v, i) => (i % 3 === 0 ? a : b).recordMs(v));
    a.merge(LatencyHistogram.decode(b.encode()));
    expect(a.encode()).toBe(h.encode());
    expect(LatencyHistogram.decode(h.encode()).percentileMs(99)).toBe(h.percentileMs(99));
  });

  it('clamps negative values to 0 and values past an hour to an hour; empty encodes as ""', () => {
    const c = LatencyHistogram.create();
    expect(c.encode()).toBe('');
    expect(LatencyHistogram.decode('').count).toBe(0);
    c.recordMs(-5);
    c.recordMs(10 * 3_600_000);
    expect(c.minMs).toBe(0);
    expect(c.maxMs).toBeGreaterThanOrEqual(3_600_000 * 0.999);
    expect(c.maxMs).toBeLessThanOrEqual(3_600_000 * 1.001);
  });

  it('bins count every value once', () => {
    const bins = h.bins(30);
    expect(bins).toHaveLength(30);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(values.length);
  });
});

describe('SparseHistogram (per-second series)', () => {
  const values = latencies(5_000, 11);
  const sorted = [...values].sort((a, b) => a - b);
  const h = new SparseHistogram();
  for (const v of values) h.recordMs(v);

  it.each([50, 90, 99, 100])('p%s is within its 1/32 bucket width of a brute-force sort', (p) => {
    const exact = exactPercentile(sorted, p);
    expect(Math.abs(h.percentileMs(p) - exact)).toBeLessThanOrEqual(exact / 32 + 0.001);
  });

  it('answers the same once compacted, and keeps working after a later write', () => {
    const c = SparseHistogram.decode(h.encode());
    c.compact();
    expect(c.encode()).toBe(h.encode());
    expect(c.percentileMs(99)).toBe(h.percentileMs(99));
    c.recordMs(1);
    expect(c.count).toBe(h.count + 1);
  });

  it('merges exactly and round-trips through its encoding', () => {
    const a = new SparseHistogram();
    const b = new SparseHistogram();
    values.forEach((v, i) => (i % 2 ? a : b).recordMs(v));
    b.merge(SparseHistogram.decode(a.encode()));
    expect(b.encode()).toBe(h.encode());
    expect(b.count).toBe(values.length);
    expect(() => SparseHistogram.decode('zz.!')).toThrow(/bad per-second histogram entry/);
  });
});
