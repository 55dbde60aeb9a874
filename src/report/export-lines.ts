import type { Summary } from './summary.js';

/** One line per live metrics output: how many flushes got through, how many were dropped and why. */
export function exportLines(s: Summary): string[] {
  return (s.exports ?? []).map((e) => `export ${e.kind} ${e.url}: sent ${String(e.sent)}, dropped ${String(e.dropped)}${e.lastError ? ` (last error: ${e.lastError})` : ''}`);
}
