import { OPERATIONS } from '../core/operation.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import type { Summary, ThresholdUnit } from '../report/summary.js';
import { parseThresholds, type Threshold } from '../report/threshold.js';
import { measure, type BootstrapSettings } from './bootstrap.js';
import type { DeltaRow, Direction } from './compare-data.js';
import { measuredMs } from '../report/measured-time.js';
import { isLarge } from './large-change.js';
import { untestedReason } from './untested.js';

/**
 * The rows of the deltas table, each named by the threshold expression a gate would use, so a
 * reviewer can copy a row's metric into `--gate`. Metrics are resolved by the threshold parser, so
 * the table and the gates read the same numbers.
 */
const PERCENTILES = ['p50', 'p90', 'p99', 'max'] as const;
const WORSE_WHEN_HIGHER = new Set([
  '429',
  '4xx',
  '5xx',
  'errors',
  'failed',
  'cancelled',
  'timed_out',
  'lost',
]);
const BETTER_WHEN_HIGHER = new Set(['2xx', 'completed']);

interface RowSpec {
  group: string;
  expression: string;
}

function operationSpecs(op: string): RowSpec[] {
  return [
    `count(${op})`,
    `rps(${op})`,
    ...PERCENTILES.map((p) => `${p}(${op})`),
    `rate(errors{op=${op}})`,
    `rate(5xx{op=${op}})`,
    `rate(429{op=${op}})`,
  ].map((expression) => ({ group: op, expression }));
}

function jobSpecs(b: Summary, c: Summary): RowSpec[] {
  const timings: string[] = [];
  for (const name of ['delayTime', 'executionTime', 'firstChunk'] as const) {
    if (b.jobs[name].percentiles.count + c.jobs[name].percentiles.count > 0) timings.push(name);
  }
  for (const st of FINAL_STATES) {
    if (b.jobs.e2e[st].percentiles.count + c.jobs.e2e[st].percentiles.count > 0)
      timings.push(`e2e{status=${st}}`);
  }
  const specs: RowSpec[] = [
    'count(jobs)',
    ...['completed', 'failed', 'cancelled', 'timed_out', 'lost'].flatMap((n) => [
      `count(${n})`,
      `rate(${n})`,
    ]),
  ].map((expression) => ({ group: 'jobs', expression }));
  for (const t of timings)
    specs.push(...PERCENTILES.map((p) => ({ group: 'jobs', expression: `${p}(${t})` })));
  return specs;
}

function rowSpecs(b: Summary, c: Summary): RowSpec[] {
  const ops = [...new Set([...Object.keys(b.operations), ...Object.keys(c.operations)])]
    .filter((op) => (OPERATIONS as readonly string[]).includes(op))
    .sort();
  return [
    ...['rps(requests)', 'rate(429)', 'rate(errors)', 'rate(5xx)', 'count(dropped)'].map((expression) => ({
      group: 'requests',
      expression,
    })),
    ...ops.flatMap(operationSpecs),
    ...jobSpecs(b, c),
    { group: 'violations', expression: 'count(violations)' },
  ];
}

function directionOf(t: Threshold, delta: number): Direction {
  if (delta === 0) return 'same';
  if (t.unit === 'ms') return delta > 0 ? 'worse' : 'better';
  if (t.unit === 'ratio' && WORSE_WHEN_HIGHER.has(t.metric)) return delta > 0 ? 'worse' : 'better';
  if (t.unit === 'ratio' && BETTER_WHEN_HIGHER.has(t.metric)) return delta > 0 ? 'better' : 'worse';
  if (t.metric === 'violations' || t.metric === 'dropped') return delta > 0 ? 'worse' : 'better';
  return 'changed';
}

/** Units for which a small relative move is below what the per-second histograms resolve. */
const EFFECT_UNITS: readonly ThresholdUnit[] = ['ms', 'rps'];

export interface RowSettings extends BootstrapSettings {
  minEffect: number;
}

export function deltaRow(group: string, t: Threshold, b: Summary, c: Summary, o: RowSettings): DeltaRow {
  const m = measure(t, b, c, o);
  const delta = m.baseline === null || m.current === null ? null : m.current - m.baseline;
  const relative = delta === null || !m.baseline ? null : delta / m.baseline;
  const both = m.baseline !== null && m.current !== null;
  const large =
    m.baseline !== null &&
    m.current !== null &&
    isLarge(
      t.unit,
      { value: m.baseline, seconds: measuredMs(b) / 1000 },
      { value: m.current, seconds: measuredMs(c) / 1000 },
    );
  return {
    group,
    metric: t.expression,
    unit: t.unit,
    baseline: m.baseline,
    current: m.current,
    delta,
    relative,
    direction: delta === null ? null : directionOf(t, delta),
    significance: m.significance,
    significant: false,
    large,
    untested: both && m.significance === null ? untestedReason(t, b, c, o.jobNoise) : null,
  };
}

function degenerate(r: DeltaRow): boolean {
  const ci = r.significance?.ci;
  return r.delta === 0 && ci !== null && ci !== undefined && ci[0] === 0 && ci[1] === 0;
}

/**
 * Holm's step-down correction over every resampled row: with ~60 rows, 5 % each would call three
 * changes on two identical runs; Holm keeps the chance of any false call at 1 − level.
 */
function markSignificant(rows: DeltaRow[], level: number, minEffect: number): void {
  // A row whose resamples never move (0 of n 429s on both sides) asks no question: not counted.
  const tested = rows
    .filter((r) => r.significance !== null && !degenerate(r))
    .sort((x, y) => (x.significance?.p ?? 1) - (y.significance?.p ?? 1));
  const alpha = 1 - level;
  for (let i = 0; i < tested.length; i++) {
    const r = tested[i];
    if (!r || (r.significance?.p ?? 1) > alpha / (tested.length - i)) break;
    const large = !EFFECT_UNITS.includes(r.unit) || r.relative === null || Math.abs(r.relative) >= minEffect;
    r.significant = large && r.delta !== 0;
  }
}

export function deltaRows(b: Summary, c: Summary, o: RowSettings): DeltaRow[] {
  const specs = rowSpecs(b, c);
  const parsed = parseThresholds(
    specs.map((s) => ({ expression: `${s.expression} >= 0`, where: 'compare' })),
  );
  const rows = specs.map((s, i) => {
    const t = parsed[i];
    if (!t) throw new Error(`internal: no parse for ${s.expression}`);
    return deltaRow(s.group, { ...t, expression: s.expression }, b, c, o);
  });
  markSignificant(rows, o.level, o.minEffect);
  // Nothing on either side (5xx of an operation that never failed): noise in a table for people.
  const quiet = (r: DeltaRow): boolean =>
    (r.baseline ?? 0) === 0 && (r.current ?? 0) === 0 && r.group !== 'requests' && r.group !== 'violations';
  return rows.filter((r) => (r.baseline !== null || r.current !== null) && !quiet(r));
}
