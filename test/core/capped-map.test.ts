import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CappedMap } from '../../src/core/capped-map.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** How many of the values are still reachable after a full GC (in a later task: a WeakRef holds to the end of its own). */
async function alive(refs: WeakRef<object>[]): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return refs.filter((r) => r.deref() !== undefined).length;
}

/** Sets then deletes `rounds` batches of fresh values (the job book's way: every job is folded), making WeakRefs to the first batch. */
function churn(m: CappedMap<string, object>, rounds: number, batch: number): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < batch; i++) {
      const value = { round, i };
      if (round === 0) refs.push(new WeakRef(value));
      m.set(`k${String(round)}-${String(i)}`, value);
    }
    for (let i = 0; i < batch; i++) m.delete(`k${String(round)}-${String(i)}`);
  }
  return refs;
}

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
    expect([...m.entries()]).toEqual([
      ['d', 1],
      ['c', 3],
      ['e', 4],
    ]);
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
      if (round % 997 === 996) {
        m.clear();
        model.length = 0;
      } else if (roll < 6) {
        m.set(next, next);
        model.push(next++);
        if (model.length > 100) expect(dropped.at(-1)).toBe(model.shift());
      } else if (roll < 9 && model.length > 0) {
        const k = model.splice((round * 31) % model.length, 1)[0] as number;
        m.delete(k);
      }
      expect(m.size).toBe(model.length);
    }
    expect([...m.entries()].map(([k]) => k)).toEqual(model);
    expect(dropped.length).toBeGreaterThan(1000);
  });

  it('answers get, has and values for what it holds, drops without an onDrop, and finds the oldest again once its walk reached the end', () => {
    const m = new CappedMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1);
    expect(m.has('b')).toBe(true);
    expect(m.has('z')).toBe(false);
    m.set('c', 3); // drops a; no onDrop to tell
    expect(m.has('a')).toBe(false);
    expect([...m.values()]).toEqual([2, 3]);
    // Emptied behind the walk: the next drop needs a fresh one, which finds d first.
    m.delete('b');
    m.delete('c');
    for (const [k, v] of [
      ['d', 4],
      ['e', 5],
      ['f', 6],
    ] as const)
      m.set(k, v);
    expect([...m.entries()]).toEqual([
      ['e', 5],
      ['f', 6],
    ]);
    m.clear();
    expect(m.size).toBe(0);
    m.set('g', 7);
    m.set('h', 8);
    m.set('i', 9);
    expect([...m.values()]).toEqual([8, 9]);
  });

  // Issue 17: an iterator kept idle holds every table the map outgrew, with their values: the job
  // book's heap grew with every job it had folded.
  it('lets go of deleted values when it never reached its cap', async () => {
    const m = new CappedMap<string, object>(1_000_000);
    const refs = churn(m, 50, 1000);
    expect(m.size).toBe(0);
    expect(await alive(refs)).toBe(0);
  });

  it('lets go of deleted values once it is back below its cap, and still drops the oldest after', async () => {
    const dropped: string[] = [];
    const m = new CappedMap<string, object>(2000, (k) => dropped.push(k));
    for (let i = 0; i < 3000; i++) m.set(`full-${String(i)}`, { i });
    expect(dropped).toHaveLength(1000);
    for (let i = 1000; i < 3000; i++) m.delete(`full-${String(i)}`);
    const refs = churn(m, 50, 1000);
    expect(await alive(refs)).toBe(0);
    for (let i = 0; i < 2001; i++) m.set(`again-${String(i)}`, { i });
    expect(dropped.at(-1)).toBe('again-0');
    expect(m.size).toBe(2000);
  });
});
