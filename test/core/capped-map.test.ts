import { describe, expect, it } from 'vitest';
import { CappedMap } from '../../src/core/capped-map.js';

describe('CappedMap', () => {
  it('drops the oldest entries past its cap, in insertion order, and reports each drop', () => {
    const dropped: string[] = [];
    const m = new CappedMap<string, number>(3, (k) => dropped.push(k));
    for (const k of ['a', 'b', 'c', 'd']) m.set(k, 1);
    expect([...m.entries()].map(([k]) => k)).toEqual(['b', 'c', 'd']);
    expect(dropped).toEqual(['a']);
    // A replaced entry keeps its place; a deleted and re-added one goes to the back.
    m.set('b', 2);
    m.delete('c');
    m.set('c', 3);
    m.set('e', 4);
    expect(dropped).toEqual(['a', 'b']);
    expect([...m.entries()]).toEqual([['d', 1], ['c', 3], ['e', 4]]);
    expect(m.get('b')).toBeUndefined();
    expect(m.size).toBe(3);
  });

  it('keeps dropping the right entry through deletes from the middle, a drain to empty and a clear', () => {
    const dropped: number[] = [];
    const m = new CappedMap<number, number>(100, (k) => dropped.push(k));
    const model: number[] = [];
    let next = 0;
    for (let round = 0; round < 50_000; round++) {
      const roll = (round * 7919) % 10;
      if (roll < 6) {
        m.set(next, next);
        model.push(next++);
        if (model.length > 100) expect(dropped.at(-1)).toBe(model.shift());
      } else if (roll < 9 && model.length > 0) {
        const k = model.splice((round * 31) % model.length, 1)[0] as number;
        m.delete(k);
      } else if (round % 1000 === 9) {
        m.clear();
        model.length = 0;
      }
      expect(m.size).toBe(model.length);
    }
    expect([...m.entries()].map(([k]) => k)).toEqual(model);
    expect(dropped.length).toBeGreaterThan(1000);
  });
});
