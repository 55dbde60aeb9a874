/**
 * Time is injected so the emulator can run a 30-minute retention in milliseconds and the runner's
 * pacing can be tested without timers. `now()` is milliseconds on a monotonic scale.
 */
export interface Clock {
  now(): number;
  /** Resolves once `now()` has advanced by `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` once `now()` has advanced by `ms`; returns a cancel function. */
  schedule(ms: number, fn: () => void): () => void;
  /**
   * Declares `work` under way until it settles: time that something outside moves (a manual
   * clock's driver) does not pass meanwhile. For work done off the clock that the driver cannot see
   * whole, such as a live export's send. Real time passes regardless, so the system clock has none.
   */
  underWay?(work: Promise<unknown>): void;
  /**
   * A sleep that may end up to a millisecond early (a bare timer, see timerUntil), for a caller
   * that reads the time itself when it wakes: the pacer. A clock without one is asked to `sleep`.
   */
  nap?(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * A clock that can also say which wall-clock instant its `now()` is: a run's records count from
 * a time 0 given as an epoch instant (shards on other threads or machines share it), so whoever
 * starts a run hands it one of these, and nothing below reads the system's wall clock itself.
 */
export interface EpochClock extends Clock {
  /** Epoch milliseconds (high resolution) of the instant `now()` reads. */
  epochNow(): number;
}

/**
 * A timer that never fires before `performance.now()` reaches its due time. libuv counts from a
 * loop time cached at millisecond granularity, so a bare setTimeout(fn, ms) often runs up to 1 ms
 * before `now()` has advanced by `ms` (about half of short timers here): an executionTimeout of
 * 5000 ms ended a job at 4999. An early wake is re-armed for what is left.
 */
function timerUntil(ms: number, fn: () => void, unref: boolean): () => void {
  const due = performance.now() + Math.max(0, ms);
  let timer: NodeJS.Timeout;
  const arm = (wait: number): void => {
    timer = setTimeout(() => {
      const left = due - performance.now();
      if (left > 0) arm(Math.ceil(left));
      else fn();
    }, wait);
    if (unref) timer.unref();
  };
  arm(Math.max(0, ms));
  return () => clearTimeout(timer);
}

/** A bare timer: it may fire up to 1 ms before `performance.now()` has advanced by `ms`. */
function bareTimer(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
}

export const systemClock: EpochClock = {
  now: () => performance.now(),
  epochNow: () => performance.timeOrigin + performance.now(),
  // A sleep holds the process open (an unref'd timer would let it exit mid-run); a scheduled callback does not.
  sleep: (ms, signal) => sleepOn((wait, fn) => timerUntil(wait, fn, false), ms, signal),
  schedule: (ms, fn) => timerUntil(ms, fn, true),
  nap: (ms, signal) => sleepOn(bareTimer, ms, signal),
};

/** `sleep` on top of a clock's `schedule`: resolves when the timer fires, rejects when aborted. */
export function sleepOn(schedule: Clock['schedule'], ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = schedule(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
