import type { Summary } from './summary.js';

const SHOWN = 5;

/** "target stalled for 12.3 s from t+4s with 40 requests in flight", one line per stall. */
export function stallLines(s: Pick<Summary, 'stalls'>): string[] {
  const stalls = s.stalls ?? [];
  const lines = stalls.slice(0, SHOWN).map((x) => `target stalled for ${(x.durationMs / 1000).toFixed(1)} s from t+${String(Math.max(0, Math.round(x.at / 1000)))}s with ${String(x.inFlight)} request${x.inFlight === 1 ? '' : 's'} in flight (no answer at all)`);
  if (stalls.length > SHOWN) lines.push(`... and ${String(stalls.length - SHOWN)} more stalls (summary.json "stalls")`);
  return lines;
}
