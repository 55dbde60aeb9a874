import type { ExportSummary } from './summary.js';

/** One line per live metrics output (a run's or a capacity search's): flushes that got through, dropped, and why. */
export function exportLines(exports: readonly ExportSummary[] | undefined): string[] {
  return (exports ?? []).map(
    (e) =>
      `export ${e.kind} ${e.url}: sent ${String(e.sent)}, dropped ${String(e.dropped)}${e.lastError ? ` (last error: ${e.lastError})` : ''}`,
  );
}
