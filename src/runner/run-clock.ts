import type { EpochClock } from '../core/clock.js';

/**
 * A clock whose zero is the run's start, so record times are small. Its zero is an epoch instant
 * (high resolution), so worker threads of one run read the same time base. The zero is set once
 * the run is ready to send (`start`): set-up time is not counted against the first arrivals.
 */
export function runClock(base: EpochClock): EpochClock & { start(epochZeroMs: number): void } {
  let t0 = base.now();
  return {
    now: () => base.now() - t0,
    epochNow: () => base.epochNow(),
    sleep: (ms, signal) => base.sleep(ms, signal),
    nap: (ms, signal) => (base.nap ? base.nap(ms, signal) : base.sleep(ms, signal)),
    schedule: (ms, fn) => base.schedule(ms, fn),
    start: (epochZeroMs) => {
      // The base's reading at that instant: the epoch instant it reads now, moved back by how far
      // time 0 lies behind it.
      t0 = base.now() - (base.epochNow() - epochZeroMs);
    },
  };
}
