import type { Clock, EpochClock } from '../../core/clock.js';

/**
 * The barrier's view of its owner's clock: `now()` in epoch milliseconds, as the runner's time 0
 * and the barrier files are given, with the owner's sleeps and timers. Injected, so the barrier's
 * waits and beats can be tested on a manual clock.
 */
export type WallClock = Clock;

export function wallClockOf(clock: EpochClock): WallClock {
  return {
    now: () => clock.epochNow(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    schedule: (ms, fn) => clock.schedule(ms, fn),
  };
}

/** Resolves at `atMs` (or at once when it passed), earlier when `signal` aborts. */
export async function sleepUntil(clock: WallClock, atMs: number, signal: AbortSignal): Promise<void> {
  // A timer may wake a millisecond early: sleep again for what is left.
  for (let left = atMs - clock.now(); left > 0 && !signal.aborted; left = atMs - clock.now())
    // An abort ends the wait; the caller reads the signal to tell why.
    await clock.sleep(Math.ceil(left), signal).catch(() => undefined);
}

/**
 * Calls `fn` every `ms` on `clock` until the returned function is called; what `setInterval`
 * would do, on the injected clock. A beat that should not hold the process open is the clock's
 * to decide (the system clock's scheduled callbacks do not).
 */
export function every(clock: WallClock, ms: number, fn: () => void): () => void {
  let cancel: () => void = () => undefined;
  let stopped = false;
  const beat = (): void => {
    if (stopped) return;
    cancel = clock.schedule(ms, beat);
    fn();
  };
  cancel = clock.schedule(ms, beat);
  return () => {
    stopped = true;
    cancel();
  };
}
