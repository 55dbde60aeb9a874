import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { formatValue } from '../report/format.js';
import type { Summary } from '../report/summary.js';
import { compare, type Threshold } from '../report/threshold.js';
import { globToRegExp } from '../core/check-glob.js';
import { VIOLATION_PREFIX } from '../report/threshold-metrics.js';
import { generatorLimitedSeconds } from '../report/verdict.js';
import type { BootstrapSettings } from './bootstrap.js';
import { ChangeTests, significantAt } from './change-tests.js';
import { familyText, percentText } from './correction-text.js';
import type { GateResult } from './compare-data.js';
import type { Gate } from './gate.js';

export interface GateSettings extends BootstrapSettings {
  /** When set, a gate fails only on a change significant at this level. */
  significance: number | null;
}

function firingIds(s: Summary, g: Gate): Set<string> {
  const m = g.metric.metric;
  const pattern = m.startsWith(VIOLATION_PREFIX) ? globToRegExp(m.slice(VIOLATION_PREFIX.length)) : undefined;
  const severity = g.metric.tags.severity;
  return new Set(
    s.violations
      .filter(
        (v) =>
          v.count > 0 &&
          (pattern === undefined || pattern.test(v.id)) &&
          (severity === undefined || v.severity === severity),
      )
      .map((v) => v.id),
  );
}

function idGate(g: Gate, b: Summary, c: Summary): GateResult {
  const [from, to] =
    g.kind === 'new' ? [firingIds(b, g), firingIds(c, g)] : [firingIds(c, g), firingIds(b, g)];
  const ids = [...to].filter((id) => !from.has(id)).sort();
  const ok = compare(ids.length, g.comparator, g.target);
  const list = ids.length ? `: ${ids.join(', ')}` : '';
  return {
    expression: g.expression,
    where: g.where,
    status: ok ? 'passed' : 'failed',
    value: ids.length,
    unit: 'count',
    metricUnit: 'count',
    baseline: firingIds(b, g).size,
    current: firingIds(c, g).size,
    significance: null,
    reason: `${ids.length} ${g.kind} check id${ids.length === 1 ? '' : 's'}${list}`,
  };
}

function show(value: number, g: Gate): string {
  if (g.unit === 'relative') return `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}%`;
  const text = formatValue(Math.abs(value), g.unit, resolutionOfMetric(g.expression));
  return `${value < 0 ? '−' : '+'}${g.unit === 'ratio' ? text.replace('%', ' pp') : text}`;
}

function deltaGate(g: Gate, b: Summary, c: Summary, o: GateSettings, tests: ChangeTests): GateResult {
  const m = tests.of(g.metric);
  const base = {
    expression: g.expression,
    where: g.where,
    unit: g.unit,
    metricUnit: g.metric.unit,
    baseline: m.baseline,
    current: m.current,
    significance: m.significance,
  };
  if (m.baseline === null || m.current === null) {
    const missing = [m.baseline === null ? 'the baseline' : '', m.current === null ? 'the current run' : '']
      .filter(Boolean)
      .join(' and ');
    return {
      ...base,
      status: 'inconclusive',
      value: null,
      reason: `no data for ${g.metric.expression} in ${missing}`,
    };
  }
  const delta = m.current - m.baseline;
  if (g.relative && m.baseline === 0 && delta !== 0) {
    return {
      ...base,
      status: 'inconclusive',
      value: null,
      reason: `the baseline's ${g.metric.expression} is 0: a change relative to it is undefined`,
    };
  }
  const value = g.relative ? (m.baseline === 0 ? 0 : delta / m.baseline) : delta;
  if (compare(value, g.comparator, g.target))
    return { ...base, status: 'passed', value, reason: `change ${show(value, g)}` };
  const s = m.significance;
  if (o.significance !== null && s) {
    // The gate judges the same corrected decision as the row of its metric (change-tests.ts).
    const confidence = `confidence ${percentText(s.corrected.confidence)}`;
    const holm = `Holm-corrected over ${familyText(s.corrected)}`;
    if (!significantAt(s, o.significance)) {
      return {
        ...base,
        status: 'passed',
        value,
        reason: `change ${show(value, g)} is past the limit but within noise (${confidence} < ${(100 * o.significance).toFixed(0)}%, ${holm})`,
      };
    }
    return { ...base, status: 'failed', value, reason: `change ${show(value, g)}, significant (${confidence}, ${holm})` };
  }
  const note = o.significance !== null ? ' (this metric cannot be resampled: judged on its value)' : '';
  return { ...base, status: 'failed', value, reason: `change ${show(value, g)}${note}` };
}

/**
 * Gates on what the client itself times (request latency, end-to-end, first chunk, request rates):
 * while jobstorm was its own bottleneck these include its queueing. delayTime and executionTime
 * are the service's own figures and are not affected.
 */
function clientTimed(g: Gate): boolean {
  const { metric, unit } = g.metric;
  return unit === 'rps' || (unit === 'ms' && metric !== 'delayTime' && metric !== 'executionTime');
}

/**
 * A client-timed gate cannot blame the service for a change when a run was generator-limited: a
 * failure may be jobstorm's own queueing, and a pass against a limited baseline may hide a
 * regression (its figures were inflated). Those gates are inconclusive, with the reason.
 */
function discountGenerator(r: GateResult, g: Gate, b: Summary, c: Summary): GateResult {
  if (!clientTimed(g) || r.status === 'inconclusive') return r;
  const [bs, cs] = [generatorLimitedSeconds(b), generatorLimitedSeconds(c)];
  if (r.status === 'failed' ? bs + cs === 0 : bs === 0) return r;
  const which = [
    bs > 0 ? `the baseline (${bs.toFixed(0)} s)` : '',
    cs > 0 ? `the current run (${cs.toFixed(0)} s)` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return {
    ...r,
    status: 'inconclusive',
    reason: `${r.reason}; but jobstorm itself was the bottleneck in ${which}, so ${g.metric.expression} there includes its own queueing: rerun with more CPU or --workers`,
  };
}

/** The metrics the delta() gates name: the family of pre-registered changes (change-tests.ts). */
export function gatedMetrics(gates: readonly Gate[]): Threshold[] {
  return gates.filter((g) => g.kind === 'delta').map((g) => g.metric);
}

/**
 * Every gate judged. `tests` holds the comparison's measured and corrected changes; without it,
 * the gates' metrics are measured and corrected among themselves, as the comparison would.
 */
export function evaluateGates(
  gates: readonly Gate[],
  b: Summary,
  c: Summary,
  o: GateSettings,
  tests: ChangeTests = new ChangeTests(b, c, o, { table: [], gates: gatedMetrics(gates) }),
): GateResult[] {
  return gates.map((g) =>
    g.kind === 'delta' ? discountGenerator(deltaGate(g, b, c, o, tests), g, b, c) : idGate(g, b, c),
  );
}
