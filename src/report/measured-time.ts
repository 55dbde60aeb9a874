import type { Summary } from './summary.js';

/**
 * The run's measured time: a warm-up's requests are left out of every count, so its time is left
 * out of every rate too. Summary building, thresholds and compare all divide by this one figure.
 */
export function measuredMs(s: Pick<Summary, 'run' | 'warmup'>): number {
  return Math.max(0, s.run.durationMs - (s.warmup?.ms ?? 0));
}
