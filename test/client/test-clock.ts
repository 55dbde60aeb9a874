import type { Clock } from '../../src/core/clock.js';

/** Real monotonic time, but sleeps are noted and end at once, so backoff tests take no time. */
export class InstantSleepClock implements Clock {
  readonly sleeps: number[] = [];

  now(): number {
    // Real time: the client under test reaches a real server; only its sleeps are skipped.
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return Promise.resolve();
  }

  schedule(ms: number, fn: () => void): () => void {
    // Real time: timeouts of requests to a real loopback server.
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  }
}
