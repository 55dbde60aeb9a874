import { OPERATIONS } from '../core/operation.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import type { Summary, ThresholdUnit } from '../report/summary.js';
import { parseThresholds, type Threshold } from '../report/threshold.js';
import type { BootstrapSettings } from './bootstrap.js';
import { significantAt, type ChangeTests, type TestedChange } from './change-tests.js';
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

/** A row of the table: where it belongs, and its metric as a threshold (named as a gate would). */
export interface RowMetric {
  group: string;
  threshold: Threshold;
}

/** The table's metrics, parsed by the threshold parser, so the table and the gates read the same numbers. */
export function rowMetrics(b: Summary, c: Summary): RowMetric[] {
  const specs = rowSpecs(b, c);
  const parsed = parseThresholds(
    specs.map((s) => ({ expression: `${s.expression} >= 0`, where: 'compare' })),
  );
  return specs.map((s, i) => {
    const t = parsed[i];
    if (!t) throw new Error(`internal: no parse for ${s.expression}`);
    return { group: s.group, threshold: { ...t, expression: s.expression } };
  });
}

/** Times and rates per second must also move by minEffect of the baseline to count. */
function clearsEffect(unit: ThresholdUnit, relative: number | null, minEffect: number): boolean {
  return !EFFECT_UNITS.includes(unit) || relative === null || Math.abs(relative) >= minEffect;
}

export function deltaRow(row: RowMetric, m: TestedChange, b: Summary, c: Summary, o: RowSettings): DeltaRow {
  const t = row.threshold;
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
  const s = m.significance;
  const moved = delta !== null && delta !== 0 && clearsEffect(t.unit, relative, o.minEffect);
  return {
    group: row.group,
    metric: t.expression,
    unit: t.unit,
    baseline: m.baseline,
    current: m.current,
    delta,
    relative,
    direction: delta === null ? null : directionOf(t, delta),
    significance: s,
    significant: moved && significantAt(s, o.level),
    significantAlone: moved && s !== null && s.p <= 1 - o.level,
    large,
    untested: both && s === null ? untestedReason(t, b, c, o.jobNoise) : null,
  };
}

/** The table, each row's significance read from the one correction (change-tests.ts). */
export function deltaRows(
  rows: readonly RowMetric[],
  tests: ChangeTests,
  b: Summary,
  c: Summary,
  o: RowSettings,
): DeltaRow[] {
  const all = rows.map((r) => deltaRow(r, tests.of(r.threshold), b, c, o));
  // Nothing on either side (5xx of an operation that never failed): noise in a table for people.
  const quiet = (r: DeltaRow): boolean =>
    (r.baseline ?? 0) === 0 && (r.current ?? 0) === 0 && r.group !== 'requests' && r.group !== 'violations';
  return all.filter((r) => (r.baseline !== null || r.current !== null) && !quiet(r));
}
