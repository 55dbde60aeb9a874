import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../../src/core/turn-batch.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TurnBatch', () => {
  it('hands over one turn of items together, in order, after the turn', async () => {
    const batches: number[][] = [];
    const batch = new TurnBatch<number>((items) => batches.push([...items]));
    batch.push(1);
    batch.push(2);
    batch.push(3);
    expect(batches).toEqual([]);
    await nextTurn();
    batch.push(4);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('flush hands over what is pending at once, and nothing twice', async () => {
    const seen: number[] = [];
    const batch = new TurnBatch<number>((items) => seen.push(...items));
    batch.push(1);
    batch.flush();
    expect(seen).toEqual([1]);
    await nextTurn();
    expect(seen).toEqual([1]);
  });

  it('a sink that throws in a turn does not crash the loop: the error comes out of the next flush', async () => {
    const batch = new TurnBatch<number>((items) => {
      if (items.includes(2)) throw new Error('sink broke');
    });
    batch.push(2);
    await nextTurn();
    batch.push(3);
    expect(() => batch.flush()).toThrow('sink broke');
    expect(() => batch.flush()).not.toThrow();
  });
});
