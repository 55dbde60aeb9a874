import type { Clock } from '../../src/core/clock.js';

/** Real monotonic time, but sleeps are noted and end at once, so backoff tests take no time. */
export class InstantSleepClock implements Clock {
  readonly sleeps: number[] = [];

  now(): number {
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return Promise.resolve();
  }

  schedule(ms: number, fn: () => void): () => void {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  }
}
