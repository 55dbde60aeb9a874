import { formatPercent, formatValue } from '../report/format.js';
import type { ThresholdUnit } from '../report/summary.js';
import type { CheckRow, Comparison, CompareRun, DeltaRow, GateResult, Significance } from './compare-data.js';

/** Text shared by compare.md and compare.html: the same words and numbers in both. */
export const DELTA_HEADER = ['metric', 'baseline', 'current', 'change', 'interval', 'confidence', ''];
export const GATE_HEADER = ['', 'gate', 'baseline', 'current', 'result'];
export const CHECK_HEADER = [
  'check',
  'violations before',
  'violations now',
  'judged before',
  'judged now',
  '',
];

export function formatChange(delta: number | null, unit: ThresholdUnit): string {
  if (delta === null) return 'n/a';
  if (delta === 0) return '0';
  const sign = delta > 0 ? '+' : '−';
  const text = formatValue(Math.abs(delta), unit);
  return `${sign}${unit === 'ratio' ? text.replace('%', ' pp') : text}`;
}

function relativeText(r: DeltaRow): string {
  return r.relative === null || r.delta === 0
    ? ''
    : ` (${r.relative > 0 ? '+' : '−'}${formatPercent(Math.abs(r.relative))})`;
}

export function intervalText(s: Significance | null, unit: ThresholdUnit): string {
  if (!s?.ci) return '';
  return `${formatChange(s.ci[0], unit)} … ${formatChange(s.ci[1], unit)}`;
}

export function confidenceText(s: Significance | null): string {
  return s ? `${(100 * s.confidence).toFixed(1)}%` : '';
}

/** The mark at the end of a row: only significant changes are called anything. */
export function verdictMark(r: DeltaRow): string {
  if (!r.significant) return '';
  if (r.direction === 'worse') return 'regression';
  if (r.direction === 'better') return 'improvement';
  return 'changed';
}

export function deltaCells(r: DeltaRow): string[] {
  return [
    r.metric,
    formatValue(r.baseline, r.unit),
    formatValue(r.current, r.unit),
    `${formatChange(r.delta, r.unit)}${relativeText(r)}`,
    intervalText(r.significance, r.unit),
    confidenceText(r.significance),
    verdictMark(r),
  ];
}

export function gateCells(g: GateResult): string[] {
  const value = (v: number | null): string => (v === null ? 'no data' : formatValue(v, g.metricUnit));
  return [g.status, g.expression, value(g.baseline), value(g.current), g.reason];
}

function coverage(n: number | null): string {
  return n === null ? '' : String(n);
}

export function checkCells(c: CheckRow): string[] {
  return [
    c.id,
    String(c.baselineViolations),
    String(c.currentViolations),
    coverage(c.baselineCoverage),
    coverage(c.currentCoverage),
    c.change === 'clean' ? '' : c.change,
  ];
}

/** Checks worth a row: those that changed or still fire; clean ones are counted below the table. */
export function notableChecks(cmp: Comparison): CheckRow[] {
  return cmp.checks.filter((c) => c.change !== 'clean');
}

export function runLine(r: CompareRun): string {
  const shards = r.shards.length ? `, ${r.shards.length} shards merged` : '';
  return `${r.id} (${r.start}, ${r.targetKind === 'emulator' ? 'embedded emulator' : r.target}, ${(r.durationMs / 1000).toFixed(1)} s, ${r.offeredRate.toFixed(1)} offered/s${shards})`;
}

export function headline(cmp: Comparison): string {
  const tested = cmp.deltas.filter(
    (d) =>
      d.significance !== null &&
      !(d.delta === 0 && d.significance.ci?.[0] === 0 && d.significance.ci[1] === 0),
  ).length;
  const how = `at ${(cmp.settings.level * 100).toFixed(0)}% confidence, Holm-corrected over ${tested} resampled deltas; time changes under ${formatPercent(cmp.settings.minEffect)} count as noise`;
  if (!cmp.regressions.length && !cmp.improvements.length) return `No significant change (${how}).`;
  const parts: string[] = [];
  if (cmp.regressions.length) parts.push(`significant regressions: ${cmp.regressions.join(', ')}`);
  if (cmp.improvements.length) parts.push(`significant improvements: ${cmp.improvements.join(', ')}`);
  return `${parts.join('; ')} (${how}).`;
}
