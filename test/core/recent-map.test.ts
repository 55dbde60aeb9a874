import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../src/core/recent-map.js';

describe('RecentMap', () => {
  it('holds at least the latest `keep` keys, at most twice as many, and lets older ones go', () => {
    const m = new RecentMap<string, number>(4);
    for (let i = 0; i < 23; i++) {
      m.set(`job-${String(i)}`, i);
      // The latest min(i + 1, 4) keys are always there.
      for (let back = 0; back < Math.min(i + 1, 4); back++) expect(m.get(`job-${String(i - back)}`)).toBe(i - back);
      expect(m.size).toBeLessThanOrEqual(8);
    }
    // 23 keys in generations of 4: 0-3, …, 16-19 are full; 20-22 are the newer. 16-19 remain.
    expect(m.get('job-16')).toBe(16);
    expect(m.get('job-15')).toBeUndefined();
    expect(m.size).toBe(7);
  });

  it('reads a key set again from its newer generation, and an undefined value as set', () => {
    const m = new RecentMap<string, number | undefined>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3); // a generation of three: a, b, c go to the older one
    m.set('a', 10);
    expect(m.get('a')).toBe(10);
    expect(m.get('b')).toBe(2);
    m.set('b', undefined);
    expect(m.get('b')).toBeUndefined();
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('a')).toBeUndefined();
  });
});
