/**
 * Epoch milliseconds, as the runner's time 0 is given (performance.timeOrigin + performance.now()),
 * and a sleep until one of them. Injected, so the barrier's waits can be tested without timers.
 */
export interface WallClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const wallNow: WallClock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
    }),
};

/** Resolves at `atMs` (or at once when it passed), earlier when `signal` aborts. */
export async function sleepUntil(clock: WallClock, atMs: number, signal: AbortSignal): Promise<void> {
  // setTimeout may wake a millisecond early: sleep again for what is left.
  for (let left = atMs - clock.now(); left > 0 && !signal.aborted; left = atMs - clock.now())
    await clock.sleep(Math.ceil(left), signal);
}
