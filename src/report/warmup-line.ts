import { formatMs } from './format.js';
import type { Summary } from './summary.js';

/**
 * "warm-up: the first 5s were sent and checked, not measured (…)": without it a reader would take
 * the operation counts for everything that was sent. Empty without a warm-up.
 */
export function warmupLines(s: Pick<Summary, 'warmup'>): string[] {
  const w = s.warmup;
  if (!w) return [];
  const dropped = w.dropped > 0 ? `, ${String(w.dropped)} arrivals dropped` : '';
  return [
    `warm-up: the first ${formatMs(w.ms)} were sent and checked but not measured (${String(w.requests)} requests${dropped}); the counts, latencies and thresholds are of the rest, the per-second charts and the violations of the whole run`,
  ];
}
