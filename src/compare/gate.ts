import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import type { ThresholdUnit } from '../report/summary.js';
import {
  NUMBER_WITH_UNIT,
  ThresholdSyntaxError,
  parseThresholds,
  toTarget,
  type Comparator,
  type Threshold,
  type ThresholdNames,
} from '../report/threshold.js';
import { THRESHOLD_METRICS, VIOLATION_PREFIX } from '../report/threshold-metrics.js';

/**
 * A gate on the change between two runs: the threshold grammar with one wrapper around the metric.
 *   delta(p99(run)) < 10%            relative change of a time (or of a rate per second, a count)
 *   delta(p95(e2e{status=COMPLETED})) < 250ms   absolute change, in the metric's unit
 *   delta(rate(429)) < 0.5%          change of a fraction, in percentage points
 *   new(violations) == 0             check ids that fire now and did not in the baseline
 *   vanished(violation:transition.*) == 0
 * The metric inside is parsed and resolved by the threshold parser itself.
 */
export type GateKind = 'delta' | 'new' | 'vanished';

export interface Gate {
  expression: string;
  where: string;
  kind: GateKind;
  /** The metric as a threshold (its own comparator and target are unused). */
  metric: Threshold;
  comparator: Comparator;
  target: number;
  /** The limit is a fraction of the baseline value (`10%` of a time, rate per second or count). */
  relative: boolean;
  /** Unit of `target`. */
  unit: ThresholdUnit | 'relative';
}

export interface GateSource {
  expression: string;
  where: string;
}

const GATE = /^\s*([A-Za-z]+)\s*\((.*)\)\s*(<=|>=|==|!=|<|>)\s*(.*?)\s*$/;
const KINDS: readonly GateKind[] = ['delta', 'new', 'vanished'];

class GateError extends Error {}

function parseMetric(inner: string, where: string, names: ThresholdNames): Threshold {
  try {
    const [t] = parseThresholds([{ expression: `${inner} >= 0`, where }], names);
    if (!t) throw new GateError(`cannot read "${inner}"`);
    return { ...t, expression: inner.trim() };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // The threshold parser quotes the expression it was handed; the gate's own is quoted instead.
    throw new GateError(err.issues.map((i) => i.message.replace(/^"[^"]*": /, '')).join('; '));
  }
}

function parseLimit(
  text: string,
  unit: ThresholdUnit,
  kind: GateKind,
): { target: number; relative: boolean } {
  const number = NUMBER_WITH_UNIT.exec(text);
  if (!number?.[1]) throw new GateError(`cannot read the limit "${text}"; write e.g. 10%, 250ms or 0`);
  const value = Number(number[1]);
  const unitText = number[2] ?? '';
  if (kind === 'delta' && unitText === '%' && unit !== 'ratio')
    return { target: value / 100, relative: true };
  try {
    // A change may be negative ("faster by at least 5ms": delta(p50(run)) <= -5ms), so no range check.
    return {
      target: unit === 'ratio' && unitText === '' ? value : toTarget(value, unitText, unit),
      relative: false,
    };
  } catch (err) {
    if (err instanceof ThresholdSyntaxError) throw new GateError(err.message);
    throw err;
  }
}

function parseOne(expression: string, where: string, names: ThresholdNames): Gate {
  const m = GATE.exec(expression);
  const kind = m?.[1] as GateKind | undefined;
  if (!m || kind === undefined || !KINDS.includes(kind)) {
    throw new GateError(
      'a gate compares two runs: write delta(<metric>) <op> <limit> (e.g. delta(p99(run)) < 10%) or new(violations) == 0',
    );
  }
  const metric = parseMetric(m[2] ?? '', where, names);
  const isViolations = metric.metric === 'violations' || metric.metric.startsWith(VIOLATION_PREFIX);
  if (kind !== 'delta' && !isViolations)
    throw new GateError(
      `${kind}() counts check ids; use it on violations or violation:<id or glob>, not "${metric.metric}"`,
    );
  if (kind === 'delta' && !THRESHOLD_METRICS.has(metric.metric) && !isViolations)
    throw new GateError(`unknown metric "${metric.metric}"`);
  const unit: ThresholdUnit = kind === 'delta' ? metric.unit : 'count';
  const { target, relative } = parseLimit(m[4] ?? '', unit, kind);
  return {
    expression: expression.trim(),
    where,
    kind,
    metric,
    comparator: m[3] as Comparator,
    target,
    relative,
    unit: relative ? 'relative' : unit,
  };
}

/**
 * Parses every gate, reporting every bad one at once, each naming the gate and where it came from.
 * `names.checkIds` (handed in by whoever reads gates a person wrote) makes `new(violation:nosuch)`
 * an error with a did-you-mean, as for thresholds, not a gate that passes for ever.
 */
export function parseGates(sources: readonly GateSource[], names: ThresholdNames = {}): Gate[] {
  const issues: ConfigIssue[] = [];
  const gates: Gate[] = [];
  for (const s of sources) {
    try {
      gates.push(parseOne(s.expression, s.where, names));
    } catch (err) {
      if (!(err instanceof GateError)) throw err;
      issues.push({ where: s.where, message: `gate "${s.expression.trim()}": ${err.message}` });
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return gates;
}
