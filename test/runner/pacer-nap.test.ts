import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { pace, type Dispatch } from '../../src/runner/pacer.js';
import type { RunContext } from '../../src/runner/run-context.js';
import { arrivalSchedule } from '../../src/schedule/index.js';

/*
 * Issue 49: the pacer waits for arrivals with Clock.nap, a bare timer that may wake up to a
 * millisecond early (libuv counts from a loop time cached at millisecond granularity), instead of
 * a sleep that re-arms an early wake for a whole millisecond more. An early wake must never send
 * an arrival before its time: the pacer reads the clock when it wakes.
 */

/** A manual clock whose naps end `earlyMs` before they are due (the worst a bare timer does). */
function nappingClock(clock: ManualClock, earlyMs: number, naps: { n: number }): Clock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    schedule: (ms, fn) => clock.schedule(ms, fn),
    nap: (ms, signal) => {
      naps.n++;
      return clock.sleep(Math.max(0, ms - earlyMs), signal);
    },
  };
}

async function paced(clock: Clock, manual: ManualClock): Promise<{ at: number; sent: number }[]> {
  const schedule = arrivalSchedule([{ kind: 'constant', rate: 2000, durationMs: 1000 }], {
    process: 'poisson',
    seed: 49,
  });
  const sent: { at: number; sent: number }[] = [];
  const dispatch: Dispatch = {
    arrive: (at) => sent.push({ at, sent: clock.now() }),
    launch: () => Promise.resolve(),
  };
  const ctx = { clock, stop: new AbortController().signal } as unknown as RunContext;
  const state = { finished: false };
  const done = pace(schedule, [], ctx, dispatch, undefined).then(() => (state.finished = true));
  // Timers fire in time order; a step of 0.05 ms stands for the machine's timer resolution. Each
  // step lets the pacer's promise chain run (it sets its next timer a few reactions after a wake).
  for (let i = 0; i < 1200 * 20 && !state.finished; i++) {
    manual.advance(0.05);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  await done;
  return sent;
}

describe('the pacer on naps that wake early', () => {
  it('never sends an arrival before its time, and sends every one', async () => {
    const manual = new ManualClock();
    const naps = { n: 0 };
    const sent = await paced(nappingClock(manual, 0.9, naps), manual);
    expect(sent.length).toBeGreaterThan(1800);
    expect(sent.length).toBeLessThan(2200);
    expect(sent.every((s) => s.sent >= s.at)).toBe(true);
    // It napped (a clock with naps is used for them), no more than one nap a wake of at least 0.1 ms.
    expect(naps.n).toBeGreaterThan(100);
    expect(naps.n).toBeLessThan(10_000);
  });

  it('a clock without naps is asked to sleep, as before', async () => {
    const manual = new ManualClock();
    const sent = await paced(manual, manual);
    expect(sent.length).toBeGreaterThan(1800);
    expect(sent.every((s) => s.sent >= s.at)).toBe(true);
  });
});
