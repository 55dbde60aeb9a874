import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { formatPercent, formatValue } from '../report/format.js';
import type { ThresholdUnit } from '../report/summary.js';
import type { CheckRow, Comparison, CompareRun, DeltaRow, GateResult, Significance } from './compare-data.js';
import { familyText, percentText } from './correction-text.js';
import { factorText } from './large-change.js';
import { MAX_WINDOWS } from './windows.js';

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

export function formatChange(delta: number | null, unit: ThresholdUnit, resolutionMs = 0): string {
  if (delta === null) return 'n/a';
  if (delta === 0) return '0';
  const sign = delta > 0 ? '+' : '−';
  const text = formatValue(Math.abs(delta), unit, resolutionMs);
  return `${sign}${unit === 'ratio' ? text.replace('%', ' pp') : text}`;
}

function relativeText(r: DeltaRow): string {
  return r.relative === null || r.delta === 0
    ? ''
    : ` (${r.relative > 0 ? '+' : '−'}${formatPercent(Math.abs(r.relative))})`;
}

export function intervalText(s: Significance | null, unit: ThresholdUnit, resolutionMs = 0): string {
  if (!s?.ci) return '';
  return `${formatChange(s.ci[0], unit, resolutionMs)} … ${formatChange(s.ci[1], unit, resolutionMs)}`;
}

/** The corrected confidence, marked when the row's metric is corrected among the gates' instead. */
export function confidenceText(s: Significance | null): string {
  if (!s) return '';
  const c = s.corrected;
  return `${percentText(c.confidence)}${c.family === 'gates' ? ' gated' : ''}`;
}

/** The mark at the end of a row: significant changes, and large ones that could not be tested. */
export function verdictMark(r: DeltaRow): string {
  if (!r.significant && r.significantAlone && (r.direction === 'worse' || r.direction === 'better'))
    return `${r.direction === 'worse' ? 'regression' : 'improvement'} alone, not after correction`;
  if (!r.significant) return r.large && r.untested ? 'large, not tested' : '';
  if (r.direction === 'worse') return 'regression';
  if (r.direction === 'better') return 'improvement';
  return 'changed';
}

/** A row's value in its unit, a whole-ms timing in whole ms. */
function rowValue(r: DeltaRow, v: number | null): string {
  return formatValue(v, r.unit, resolutionOfMetric(r.metric));
}

export function deltaCells(r: DeltaRow): string[] {
  return [
    r.metric,
    rowValue(r, r.baseline),
    rowValue(r, r.current),
    `${formatChange(r.delta, r.unit, resolutionOfMetric(r.metric))}${relativeText(r)}`,
    intervalText(r.significance, r.unit, resolutionOfMetric(r.metric)),
    confidenceText(r.significance),
    verdictMark(r),
  ];
}

export function gateCells(g: GateResult): string[] {
  const value = (v: number | null): string =>
    v === null ? 'no data' : formatValue(v, g.metricUnit, resolutionOfMetric(g.expression));
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

/** Checks worth a row: those that changed or still fire; clean and idle ones are counted below the table. */
export function notableChecks(cmp: Comparison): CheckRow[] {
  return cmp.checks.filter((c) => c.change !== 'clean' && c.change !== 'not exercised');
}

function plural(n: number, word: string): string {
  return `${String(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** The line under the checks table: clean means exercised and silent in both runs, nothing less. */
export function checksLine(cmp: Comparison): string {
  const clean = cmp.checks.filter((c) => c.change === 'clean').length;
  const idle = cmp.checks.filter((c) => c.change === 'not exercised').map((c) => c.id);
  const line = `${plural(clean, 'check')} clean in both runs (exercised, no violation)`;
  if (!idle.length) return `${line}.`;
  return `${line}; ${String(idle.length)} not exercised in either run, so not known to be clean: ${idle.join(', ')}.`;
}

export function runLine(r: CompareRun): string {
  const shards = r.shards.length ? `, ${r.shards.length} shards merged` : '';
  return `${r.id} (${r.start}, ${r.targetKind === 'emulator' ? 'embedded emulator' : r.target}, ${(r.durationMs / 1000).toFixed(1)} s, ${r.offeredRate.toFixed(1)} offered/s${shards})`;
}

/** Rows whose change is large by LARGE_RULE but that no resampling could test. */
export function untestedLarge(cmp: Comparison): DeltaRow[] {
  return cmp.deltas.filter((d) => d.large && d.untested !== null);
}

/** "24 s (24 windows of 1 s)": a measured length, in the windows the comparison would cut it into. */
function runLengthText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const per = Math.max(1, Math.ceil(seconds / MAX_WINDOWS));
  return `${String(seconds)} s (${plural(Math.ceil(seconds / per), 'window')} of ${String(per)} s)`;
}

/** `p99(status) 3.60ms → 86.7ms, ×24, not tested: too few values…; a measured run of at least 24 s…`. */
export function untestedText(r: DeltaRow): string {
  const factor =
    r.unit === 'count' || r.baseline === null || r.current === null ? '' : factorText(r.baseline, r.current);
  const size = `${r.metric} ${rowValue(r, r.baseline)} → ${rowValue(r, r.current)}${factor ? `, ${factor}` : ''}`;
  const longer = r.untested?.runMs
    ? `; a measured run of at least ${runLengthText(r.untested.runMs)} would test it`
    : '';
  return `${size}, not tested: ${r.untested?.reason ?? 'not resampled'}${longer}`;
}

/** Under every deltas table: what the interval and the confidence columns hold. */
export function columnsNote(cmp: Comparison): string {
  return `Interval: ${(cmp.settings.level * 100).toFixed(0)}% interval of the change from ${String(cmp.settings.resamples)} seeded resamples (per-second windows where the series has the metric). Confidence: how sure the resamples are that the change is not noise, after Holm's correction for the other changes tested with it: the table's rows together, and the metrics a gate names ("gated") apart, among themselves. A row significant on its own but not after the correction is named under the headline.`;
}

/** How many changes each family corrected for: read from the corrections themselves. */
function familySize(cmp: Comparison, family: 'gates' | 'table'): number {
  const all = [...cmp.deltas.map((d) => d.significance), ...cmp.gates.map((g) => g.significance)];
  return Math.max(0, ...all.map((s) => (s?.corrected.family === family ? s.corrected.tests : 0)));
}

function howText(cmp: Comparison): string {
  const gated = familySize(cmp, 'gates');
  const apart = gated ? ` and, apart, over ${plural(gated, 'gated metric')}` : '';
  return `at ${(cmp.settings.level * 100).toFixed(0)}% confidence, Holm-corrected over ${plural(familySize(cmp, 'table'), 'resampled row')}${apart}; time changes under ${formatPercent(cmp.settings.minEffect)} count as noise`;
}

/** Rows that are significant on their own but not after the correction, worse or better. */
export function correctedAway(cmp: Comparison): DeltaRow[] {
  return cmp.deltas.filter(
    (d) => d.significantAlone && !d.significant && (d.direction === 'worse' || d.direction === 'better'),
  );
}

/** `regression p50(executionTime) 222ms → 290ms (+30.6%): confidence 99.7% alone, 94.3% Holm-corrected over 19 rows, under 95%`. */
export function correctedAwayText(r: DeltaRow, level: number): string {
  const kind = r.direction === 'worse' ? 'regression' : 'improvement';
  const s = r.significance;
  const why = s
    ? `: confidence ${percentText(s.confidence)} alone, ${percentText(s.corrected.confidence)} Holm-corrected over ${familyText(s.corrected)}, under ${(level * 100).toFixed(0)}%`
    : '';
  return `${kind} ${r.metric} ${rowValue(r, r.baseline)} → ${rowValue(r, r.current)}${relativeText(r)}${why}`;
}

/** The clauses after the lead, for changes the lead cannot call significant. */
function caveats(away: readonly DeltaRow[], untested: readonly DeltaRow[]): string[] {
  const out: string[] = [];
  if (away.length) {
    const kinds = [...new Set(away.map((r) => (r.direction === 'worse' ? 'regression' : 'improvement')))];
    out.push(
      `${plural(away.length, 'change')} (${kinds.join(', ')}) significant on ${away.length === 1 ? 'its' : 'their'} own ${away.length === 1 ? 'is' : 'are'} not after the correction, so not called significant, though ${away.length === 1 ? 'it' : 'they'} may be real`,
    );
  }
  if (untested.length) {
    const lengths = untested.map((r) => r.untested?.runMs ?? 0);
    const longest = Math.max(0, ...lengths);
    const which = lengths.every((ms) => ms > 0) ? 'them' : 'those a longer run can';
    const run = longest ? `; a measured run of at least ${runLengthText(longest)} would test ${which}` : '';
    out.push(`${plural(untested.length, 'large change')} could not be tested, and untested is not "no change"${run}`);
  }
  return out;
}

/**
 * The first line of every rendering: "No significant change" only when every large change was
 * tested and nothing significant on its own was corrected away; those are named below it.
 */
export function headline(cmp: Comparison): string {
  const how = howText(cmp);
  const parts: string[] = [];
  if (cmp.regressions.length) parts.push(`significant regressions: ${cmp.regressions.join(', ')}`);
  if (cmp.improvements.length) parts.push(`significant improvements: ${cmp.improvements.join(', ')}`);
  const more = caveats(correctedAway(cmp), untestedLarge(cmp));
  if (!more.length) return parts.length ? `${parts.join('; ')} (${how}).` : `No significant change (${how}).`;
  const lead = parts.length ? parts.join('; ') : 'No tested change is significant';
  return `${lead} (${how}); ${more.join('; ')}:`;
}

/** The headline, then one line per change corrected away and per large change that could not be tested. */
export function headlineLines(cmp: Comparison): string[] {
  return [
    headline(cmp),
    ...correctedAway(cmp).map((r) => correctedAwayText(r, cmp.settings.level)),
    ...untestedLarge(cmp).map(untestedText),
  ];
}
