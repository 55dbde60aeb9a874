import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../src/check/min-heap.js';
import { mulberry32 } from '../../src/schedule/prng.js';

describe('MinHeap', () => {
  it('pops in ascending order, duplicates included, through pushes between pops', () => {
    const heap = new MinHeap();
    const model: number[] = [];
    const r = mulberry32(7);
    for (let n = 0; n < 500; n++) {
      if (r() < 0.6 || model.length === 0) {
        const v = Math.floor(r() * 50);
        heap.push(v);
        model.push(v);
        model.sort((a, b) => a - b);
      } else {
        expect(heap.peek()).toBe(model[0]);
        expect(heap.pop()).toBe(model.shift());
      }
      expect(heap.size).toBe(model.length);
    }
    while (model.length > 0) expect(heap.pop()).toBe(model.shift());
    expect(heap.pop()).toBeUndefined();
    expect(heap.peek()).toBeUndefined();
  });

  it('orders small heaps exactly', () => {
    const heap = new MinHeap();
    for (const v of [5, 3, 8, 1, 9, 2]) heap.push(v);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop(), heap.pop(), heap.pop()]).toEqual([
      1, 2, 3, 5, 8, 9,
    ]);
    heap.push(4);
    heap.push(-1);
    expect(heap.peek()).toBe(-1);
    expect(heap.size).toBe(2);
  });
});
