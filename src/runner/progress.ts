import type { Clock } from '../core/clock.js';
import type { LiveCounters } from './run-context.js';
import type { ProgressSnapshot, RunOptions } from './run-options.js';

/** Hands the caller a snapshot of the live counters every `progressEveryMs`; returns the stop. */
export function startProgress(o: RunOptions, clock: Clock, counters: LiveCounters): () => void {
  if (!o.onProgress) return () => undefined;
  const every = o.progressEveryMs ?? 1000;
  let lastArrivals = 0;
  let lastAt = 0;
  let cancel = (): void => undefined;
  const tick = (): void => {
    const now = clock.now();
    const snapshot: ProgressSnapshot = {
      ...counters,
      elapsedMs: now,
      rate: ((counters.arrivals - lastArrivals) * 1000) / Math.max(1, now - lastAt),
    };
    lastArrivals = counters.arrivals;
    lastAt = now;
    o.onProgress?.(snapshot);
    cancel = clock.schedule(every, tick);
  };
  cancel = clock.schedule(every, tick);
  return () => cancel();
}
