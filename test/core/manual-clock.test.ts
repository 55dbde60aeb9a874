import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';

describe('ManualClock', () => {
  it('stands still between reads by default', () => {
    const clock = new ManualClock(5);
    expect([clock.now(), clock.now()]).toEqual([5, 5]);
  });

  it('with a read cost, no two reads are equal, and a timer the reads passed fires at the next advance', () => {
    const clock = new ManualClock(0, 1000, 0.25);
    const fired: number[] = [];
    clock.schedule(0.6, () => fired.push(clock.now()));
    const reads = [clock.now(), clock.now(), clock.now()];
    expect(reads).toEqual([0.25, 0.5, 0.75]);
    // Passed by the reads, not run by them: only an advance runs timers.
    expect(fired).toEqual([]);
    clock.advance(0);
    expect(fired).toEqual([1]);
    expect(clock.epochNow()).toBe(1001.25);
  });

  it('never goes back when the timers it ran read past the target', () => {
    const clock = new ManualClock(0, 0, 1);
    clock.schedule(1, () => {
      for (let i = 0; i < 5; i++) clock.now();
    });
    clock.advance(2);
    // 1 (the timer's time) + 5 reads in it, not the target 2; the read below costs one more.
    expect(clock.now()).toBe(7);
  });
});
