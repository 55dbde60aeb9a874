import type { CheckResult, ViolationGroup } from '../../check/checker.js';
import { ExitCode } from '../../core/exit-code.js';
import { isAccepted } from '../../core/known-deviation.js';
import {
  knownEntryLines,
  knownHeadline,
  knownReasons,
  knownTitle,
  newCount,
  skippedLines,
  violationCountText,
} from '../../report/known-lines.js';
import { coverageLine } from '../../report/verdict.js';

/** "✗" for what fails, "!" for a warning, "~" for findings all accepted as known. */
function mark(g: ViolationGroup): string {
  if (newCount(g) === 0) return '~';
  return g.severity === 'error' ? '✗' : '!';
}

/** One id: its mark, count and first example (a new one when there is one), and how to repeat it. */
function groupLines(g: ViolationGroup): string[] {
  const first = g.examples.find((e) => !isAccepted(e)) ?? g.examples[0];
  const lines = [`  ${mark(g)} ${g.id} ×${violationCountText(g)}: ${first?.message ?? ''}`];
  if (first?.repro) lines.push(`      repro: ${first.repro}`);
  return lines;
}

/**
 * `jobstorm check`'s text: the findings by id (known ones marked), the skipped checks and the known
 * entries with what became of each, then the same headline a run's verdict gives.
 */
export function checkResultLines(file: string, result: CheckResult): string[] {
  const out: string[] = [];
  const known = result.known;
  const headline = knownHeadline({ violations: result.violations, ...(known ? { known } : {}) });
  if (result.total === 0 && headline === undefined)
    return [`${file}: no violations; ${coverageLine(result.coverage)}`];
  const accepted = result.violations.reduce((n, g) => n + (g.known ?? 0), 0);
  if (result.total > 0)
    out.push(
      `${file}: ${String(result.total)} violations${accepted > 0 ? ` (${String(accepted)} known)` : ''}`,
    );
  for (const g of result.violations) out.push(...groupLines(g));
  const skipped = skippedLines({ ...(result.skipped ? { skipped: result.skipped } : {}) });
  if (skipped.length) out.push('skipped checks:', ...skipped.map((l) => `  ${l}`));
  if (known) {
    out.push(`${knownTitle({ known }, 'known')}:`, ...knownEntryLines({ known }).map((l) => `  ${l}`));
    out.push(...knownReasons({ known }));
  }
  if (headline !== undefined) out.push(`${file}: ${headline}; ${coverageLine(result.coverage)}`);
  return out;
}

/** Failed when a new finding of severity error remains; records that judged nothing prove nothing. */
export function checkExit(result: CheckResult): ExitCode {
  if (result.violations.some((g) => g.severity === 'error' && newCount(g) > 0)) return ExitCode.Failed;
  return Object.values(result.coverage).some((n) => n > 0) ? ExitCode.Ok : ExitCode.Inconclusive;
}
