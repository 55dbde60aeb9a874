import type { Clock } from '../core/clock.js';

/**
 * A clock whose zero is the run's start, so record times are small. Its zero is an epoch instant
 * (high resolution), so worker threads of one run read the same time base. The zero is set once
 * the run is ready to send (`start`): set-up time is not counted against the first arrivals.
 */
export function runClock(base: Clock): Clock & { start(epochZeroMs: number): void } {
  let t0 = base.now();
  return {
    now: () => base.now() - t0,
    sleep: (ms, signal) => base.sleep(ms, signal),
    schedule: (ms, fn) => base.schedule(ms, fn),
    start: (epochZeroMs) => {
      t0 = epochZeroMs - performance.timeOrigin;
    },
  };
}
