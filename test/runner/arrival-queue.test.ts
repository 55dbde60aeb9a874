import { describe, expect, it } from 'vitest';
import { ArrivalQueue } from '../../src/runner/arrival-queue.js';

describe('ArrivalQueue', () => {
  it('gives arrivals back first in first out, across wrap-around and growth', () => {
    const q = new ArrivalQueue();
    const out: number[] = [];
    let next = 0;
    // Interleaved pushes and shifts move the head around the ring before it has to grow.
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 30; i++) q.push(next++ + 0.5);
      for (let i = 0; i < 20; i++) out.push(q.shift());
    }
    expect(q.length).toBe(50 * 10);
    while (q.length > 0) out.push(q.shift());
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i + 0.5));
  });
});
