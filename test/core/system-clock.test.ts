import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';

/*
 * The Clock contract: `schedule` and `sleep` end only once `now()` has advanced by `ms`. A bare
 * setTimeout runs up to 1 ms early by performance.now() about half the time (libuv's cached loop
 * time), which ended an emulator job's 5000 ms executionTimeout at 4999 ms in CI.
 */
describe('systemClock', () => {
  it('schedule and sleep never end before now() has advanced by ms (300 short timers each)', async () => {
    const early: string[] = [];
    const one = (i: number, kind: 'schedule' | 'sleep'): Promise<void> => {
      const ms = 1 + (i % 20);
      const start = systemClock.now();
      const check = (): void => {
        const took = systemClock.now() - start;
        if (took < ms) early.push(`${kind} ${String(ms)} ms after ${took.toFixed(3)} ms`);
      };
      if (kind === 'sleep') return systemClock.sleep(ms).then(check);
      return new Promise((resolve) => systemClock.schedule(ms, () => (check(), resolve())));
    };
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => one(i, 'schedule')));
      await Promise.all(Array.from({ length: 100 }, (_, i) => one(i, 'sleep')));
      // Shift the loop's cached time against the real one before the next round.
      // Real time: the system clock itself is under test.
      const until = performance.now() + 0.7;
      while (performance.now() < until);
    }
    expect(early).toEqual([]);
  });

  it('a cancelled schedule does not run, a sleep aborted ends with the reason', async () => {
    let ran = false;
    const cancel = systemClock.schedule(5, () => (ran = true));
    cancel();
    const controller = new AbortController();
    // Real time: the system clock itself is under test.
    const slept = systemClock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    await systemClock.sleep(15);
    expect(ran).toBe(false);
  });
});
