import { exportLines } from '../report/export-lines.js';
import { textTable } from '../report/format.js';
import type { CapacityReport, CapacityStep } from './capacity-report.js';
import { STEP_HEADER, column, costLine, headline, planLine, reasonLines, stepRow } from './capacity-view.js';

/** Columns that fit a terminal: rate, result, the timings the SLOs usually name, and 429s. */
const TERMINAL_COLUMNS = [
  '#',
  'offered/s',
  'submitted/s',
  'achieved/s',
  'result',
  'e2e p95',
  'delay p95',
  '429',
  'queue Δ/s',
  'workers',
  'L / λ·W',
  'worker-s',
  'cost/1k jobs',
].map(column);

/** One line per finished step, for progress output while the search runs. */
export function stepLine(s: CapacityStep): string {
  const row = stepRow(s);
  const cell = (name: string): string => row[column(name)] ?? '';
  return `step ${cell('#')} (${s.stage}) ${cell('offered/s')}/s offered, ${cell('achieved/s')}/s achieved: ${s.passed ? 'pass' : `FAIL — ${s.reasons.join('; ')}`}`;
}

/** The end-of-search summary the terminal shows. */
export function renderCapacityText(r: CapacityReport): string {
  const pick = (cells: readonly string[]): string[] => TERMINAL_COLUMNS.map((i) => cells[i] ?? '');
  const lines = [
    `jobstorm capacity: ${r.scenario} against ${r.target}`,
    planLine(r),
    `SLO: ${r.slo.join(', ') || 'none'}`,
    '',
    ...textTable(
      pick(STEP_HEADER),
      r.steps.map((s) => pick(stepRow(s))),
    ),
    '',
    headline(r),
    ...optional(costLine(r)),
  ];
  const reasons = reasonLines(r);
  if (reasons.length) lines.push('', ...reasons);
  const exports = exportLines(r.exports);
  if (exports.length) lines.push('', ...exports);
  return `${lines.join('\n')}\n`;
}

function optional(line: string | undefined): string[] {
  return line === undefined ? [] : [line];
}
