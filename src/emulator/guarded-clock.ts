import type { Clock } from '../core/clock.js';

/**
 * The clock the emulator's own timers run on: an exception in a timer callback is handed to
 * `onError` instead of escaping into the event loop, where it would end the process (and with
 * it every client's emulator). Time itself is the wrapped clock's.
 */
export function guardedClock(clock: Clock, onError: (err: unknown) => void): Clock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    schedule: (ms, fn) =>
      clock.schedule(ms, () => {
        try {
          fn();
        } catch (err) {
          onError(err);
        }
      }),
  };
}
