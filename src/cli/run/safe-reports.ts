import { appendFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getReporter, reporterNames } from '../../report/reporter-registry.js';
import type { Summary } from '../../report/summary.js';

export interface ReportsWritten {
  written: string[];
  /** Each report that could not be written, with why (a full disk fails some, not all). */
  failed: { path: string; reason: string }[];
}

/**
 * Writes every file report into `dir`, summary.json first, each on its own: one that does not fit
 * is removed (never left half-written) and the others are still tried. Synchronous, so a forced
 * exit can call it from its signal handler.
 */
export function writeReportsSafely(summary: Summary, dir: string, stepSummaryPath?: string): ReportsWritten {
  const chosen = reporterNames()
    .map(getReporter)
    .filter((r) => r.fileName !== undefined);
  chosen.sort((a, b) => Number(b.fileName === 'summary.json') - Number(a.fileName === 'summary.json'));
  const result: ReportsWritten = { written: [], failed: [] };
  for (const r of chosen) {
    const path = join(dir, r.fileName ?? r.name);
    try {
      writeFileSync(path, r.render(summary));
      result.written.push(path);
    } catch (err) {
      result.failed.push({ path, reason: describe(err) });
      try {
        unlinkSync(path);
      } catch {
        // It may never have been created.
      }
    }
  }
  if (stepSummaryPath) {
    try {
      appendFileSync(stepSummaryPath, `${getReporter('markdown').render(summary)}\n`);
      result.written.push(stepSummaryPath);
    } catch (err) {
      result.failed.push({ path: stepSummaryPath, reason: describe(err) });
    }
  }
  return result;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return typeof e.code === 'string' ? `${e.code}: ${e.message}` : String(err);
}
