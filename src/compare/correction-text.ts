import type { Correction } from './compare-data.js';

/**
 * A corrected confidence in the same words in a row's column, a gate's reason and the headline:
 * `99.7%`, and what it was corrected over: `19 rows`, `1 gated metric`.
 */
export function percentText(confidence: number): string {
  return `${(100 * confidence).toFixed(1)}%`;
}

export function familyText(c: Correction): string {
  const n = c.tests;
  return c.family === 'gates'
    ? `${String(n)} gated metric${n === 1 ? '' : 's'}`
    : `${String(n)} row${n === 1 ? '' : 's'}`;
}
