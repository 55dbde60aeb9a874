import { describe, expect, it } from 'vitest';
import { RecentMap } from '../../src/core/recent-map.js';

describe('RecentMap', () => {
  it('holds the latest `keep` keys and lets older ones go', () => {
    const m = new RecentMap<string, number>(4);
    for (let i = 0; i < 23; i++) {
      m.set(`job-${String(i)}`, i);
      // The latest min(i + 1, 4) keys are always there.
      for (let back = 0; back < Math.min(i + 1, 4); back++)
        expect(m.get(`job-${String(i - back)}`)).toBe(i - back);
      expect(m.get(`job-${String(i - 4)}`)).toBeUndefined();
      expect(m.size).toBe(Math.min(i + 1, 4));
    }
    expect(m.get('job-19')).toBe(19);
    expect(m.get('job-18')).toBeUndefined();
  });

  it('reads a key set again at its latest value, and an undefined value as set', () => {
    const m = new RecentMap<string, number | undefined>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    m.set('a', 10); // overwrites the first a's slot
    expect(m.get('a')).toBe(10);
    expect(m.get('b')).toBe(2);
    m.set('b', undefined);
    expect(m.get('b')).toBeUndefined();
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get('a')).toBeUndefined();
    expect(m.get('c')).toBeUndefined();
  });

  it('answers the same through its index as by scanning: latest values, overwritten places forgotten', () => {
    const keep = 2000;
    const m = new RecentMap<string, number>(keep);
    const order: string[] = [];
    // Keys repeat (a key set twice keeps its latest value) and the ring wraps several times;
    // gets come after long stretches of sets (indexed) and after short ones (scanned).
    let x = 7;
    for (let i = 0; i < 12_000; i++) {
      x = (x * 48271) % 2147483647;
      const key = `job-${String(x % 3000)}`;
      m.set(key, i);
      order.push(key);
      if (i % 700 === 0 || i % 701 < 3) {
        const live = new Map<string, number>();
        for (let s = Math.max(0, order.length - keep); s < order.length; s++) live.set(order[s] as string, s);
        for (let k = 0; k < 3000; k += 37) {
          const id = `job-${String(k)}`;
          expect(m.get(id), `${id} after ${String(i + 1)} sets`).toBe(live.get(id));
        }
      }
    }
    expect(m.size).toBe(keep);
  });

  it('through its index: the oldest entry held is found, one overwritten since the index is not', () => {
    const keep = 1000;
    const m = new RecentMap<string, number>(keep);
    m.set('a', -1);
    for (let i = 1; i < keep; i++) m.set(`job-${String(i)}`, i);
    // More sets since the last index than a get scans: this get indexes the ring (a at its oldest place).
    expect(m.get('job-1')).toBe(1);
    expect(m.get('a')).toBe(-1);
    m.set('b', -2); // overwrites a's place
    expect(m.get('a')).toBeUndefined();
    expect(m.get('b')).toBe(-2);
    expect(m.get('job-1')).toBe(1);
  });

  it('keeps one entry with a keep of 1', () => {
    const m = new RecentMap<string, number>(1);
    m.set('a', 1);
    expect(m.get('a')).toBe(1);
    m.set('b', 2);
    expect(m.get('a')).toBeUndefined();
    expect(m.get('b')).toBe(2);
    expect(m.size).toBe(1);
  });

  it('refuses a keep that is not a positive integer', () => {
    expect(() => new RecentMap(0)).toThrow(/positive integer, got 0/);
    expect(() => new RecentMap(2.5)).toThrow(/positive integer/);
  });
});
