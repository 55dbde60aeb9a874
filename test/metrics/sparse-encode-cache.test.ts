import { describe, expect, it } from 'vitest';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';

describe('SparseHistogram encoding, kept until the next write (the live dashboard encodes every second)', () => {
  it('encodes anew after a record, a merge or a compact-then-record, never a stale string', () => {
    const h = new SparseHistogram();
    h.recordMs(1);
    const one = h.encode();
    expect(h.encode()).toBe(one);
    h.recordMs(250);
    const two = h.encode();
    expect(two).not.toBe(one);
    expect(SparseHistogram.decode(two).count).toBe(2);
    h.compact();
    expect(h.encode()).toBe(two);
    h.recordMs(3);
    expect(SparseHistogram.decode(h.encode()).count).toBe(3);
    const other = SparseHistogram.decode(h.encode());
    other.merge(h);
    expect(SparseHistogram.decode(other.encode()).count).toBe(6);
  });
});
