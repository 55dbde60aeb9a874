import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { checkPatternIssue } from './check-pattern.js';
import { closestName } from './closest-name.js';
import { perSecondProblem } from './threshold-readers.js';
import type { ThresholdUnit } from './threshold-unit.js';
import { splitWindow, type WindowFields } from './threshold-window-syntax.js';
import {
  THRESHOLD_METRICS,
  VIOLATION_PREFIX,
  metricNames,
  unitOf,
  type AggregationKind,
  type MetricSpec,
} from './threshold-metrics.js';

export type Comparator = '<' | '<=' | '>' | '>=' | '==' | '!=';

export type Aggregation =
  | { kind: 'percentile'; percentile: number; label: string }
  | { kind: 'count' }
  | { kind: 'rate' }
  | { kind: 'rps' }
  /** A figure named bare (`drainTime < 60s`). */
  | { kind: 'value' };

/** A parsed threshold; `target` is in the metric's unit (ms, a 0–1 fraction, a count, or req/s). */
export interface Threshold {
  expression: string;
  where: string;
  aggregation: Aggregation;
  metric: string;
  tags: Readonly<Record<string, string>>;
  comparator: Comparator;
  target: number;
  unit: ThresholdUnit;
  /** Held over every window of this many whole seconds (`over 30s`); absent: over the whole run. */
  windowS?: number;
  /** Judged live by the session, every second; the run stops when it fails. */
  abortOnFail?: boolean;
  /** The live judging for abortOnFail starts this long after the run's start, ms. */
  delayAbortEvalMs?: number;
}

/**
 * Where an expression came from (`--threshold`, `scenario.yaml thresholds[2]`), for errors, with
 * the scenario's object form's fields (window, abortOnFail, delayAbortEval).
 */
export interface ThresholdSource extends WindowFields {
  where?: string;
  /**
   * Read back from a summary.json rather than written by a person now: a bare time there is
   * milliseconds, as it meant when an older jobstorm wrote it down, so old summaries still load.
   */
  stored?: boolean;
}

const AGGREGATION_NAMES = [
  'p50',
  'p90',
  'p95',
  'p99',
  'p99.9',
  'max',
  'min',
  'mean',
  'avg',
  'count',
  'rate',
  'rps',
];
const COMPARATOR = /(<=|>=|==|!=|<|>)/;
export const NUMBER_WITH_UNIT = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z%\u00b5\u03bc]*)\s*$/;
const CALL = /^\s*([A-Za-z][\w.]*)\s*\(\s*([^(){}\s]+)\s*(?:\{([^}]*)\})?\s*\)\s*$/;
const BARE = /^\s*([^\s(){}]+)\s*(?:\{([^}]*)\})?\s*$/;
// Microseconds three ways: the ASCII spelling, the micro sign (U+00B5) and the Greek mu (U+03BC).
const MS_PER_UNIT: Record<string, number> = {
  us: 0.001,
  '\u00b5s': 0.001,
  '\u03bcs': 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
};

/**
 * What the parser checks names against beyond its own tables. The check ids live in src/check,
 * which this layer may not import: whoever reads a threshold a person wrote now (the CLI, the
 * library) hands them in, so `count(violation:nosuch) == 0` is an error and not a silent pass. A
 * threshold read back from a stored summary is judged as it was written then, without them.
 */
export interface ThresholdNames {
  checkIds?: readonly string[];
}

/** A problem with one expression; parsers built on this one (compare gates) reuse it. */
export class ThresholdSyntaxError extends Error {}

function fail(message: string): never {
  throw new ThresholdSyntaxError(message);
}

function parseAggregation(name: string): Aggregation {
  const p = /^p(\d{1,2}(?:\.\d+)?|100)$/.exec(name);
  if (p?.[1] !== undefined) {
    const percentile = Number(p[1]);
    if (percentile > 100) fail(`percentile ${name} is above 100`);
    return { kind: 'percentile', percentile, label: name };
  }
  if (name === 'max') return { kind: 'percentile', percentile: 100, label: 'max' };
  if (name === 'min') return { kind: 'percentile', percentile: 0, label: 'min' };
  if (name === 'mean' || name === 'avg') return { kind: 'percentile', percentile: -1, label: 'mean' };
  if (name === 'count' || name === 'rate' || name === 'rps') return { kind: name };
  const hint = closestName(name, AGGREGATION_NAMES);
  return fail(
    `unknown aggregation "${name}"${hint ? `; did you mean "${hint}"?` : ''} (use pNN, max, min, mean, count, rate or rps)`,
  );
}

/** A bare name: the figure itself where the metric is one, else its count (`violations == 0`). */
function bareAggregation(metric: string): Aggregation {
  return THRESHOLD_METRICS.get(metric)?.aggregations.includes('value')
    ? { kind: 'value' }
    : { kind: 'count' };
}

function parseTags(text: string | undefined): Record<string, string> {
  const tags: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return tags;
  for (const part of text.split(',')) {
    const kv = /^\s*([\w-]+)\s*=\s*"?([^"]*?)"?\s*$/.exec(part);
    if (!kv?.[1] || kv[2] === undefined || kv[2] === '')
      fail(`malformed tag "${part.trim()}"; write {name=value}`);
    tags[kv[1]] = kv[2];
  }
  return tags;
}

/** A check id or glob that names no check would count nothing forever: say so, with the nearest id. */
function checkPattern(pattern: string, ids: readonly string[]): void {
  const problem = checkPatternIssue(pattern, ids, VIOLATION_PREFIX);
  if (problem !== undefined) fail(problem);
}

function lookupMetric(metric: string, aggregation: Aggregation, names: ThresholdNames): MetricSpec {
  if (metric.startsWith(VIOLATION_PREFIX)) {
    const pattern = metric.slice(VIOLATION_PREFIX.length);
    if (!/^[\w.*-]+$/.test(pattern))
      fail(`"${metric}" needs a check id or glob after "${VIOLATION_PREFIX}", e.g. violation:transition.*`);
    if (names.checkIds) checkPattern(pattern, names.checkIds);
    const spec = THRESHOLD_METRICS.get('violations');
    if (!spec) fail('internal: violations metric missing');
    return spec;
  }
  const spec = THRESHOLD_METRICS.get(metric);
  if (!spec) {
    const hint = closestName(metric, [...THRESHOLD_METRICS.keys()]);
    fail(
      `unknown metric "${metric}"${hint ? `; did you mean "${hint}"?` : ''} (known: ${metricNames().join(', ')})`,
    );
  }
  if (!spec.aggregations.includes(aggregation.kind)) {
    const allowed = spec.aggregations
      .map((k: AggregationKind) =>
        k === 'percentile' ? 'pNN/max/min/mean' : k === 'value' ? `the bare name (${metric} < ...)` : k,
      )
      .join(', ');
    fail(
      `${aggregation.kind === 'percentile' ? aggregation.label : aggregation.kind}() does not apply to "${metric}"; use ${allowed}`,
    );
  }
  return spec;
}

function checkTags(metric: string, spec: MetricSpec, tags: Record<string, string>): void {
  for (const [k, v] of Object.entries(tags)) {
    const allowed = spec.tags[k];
    if (!allowed) {
      const names = Object.keys(spec.tags);
      fail(
        `"${metric}" has no tag "${k}"${names.length ? ` (tags: ${names.join(', ')})` : ' (it takes no tags)'}`,
      );
    }
    if (!allowed.includes(v)) fail(`tag ${k}=${v} is not one of ${allowed.join(', ')}`);
  }
}

/**
 * A time written without its unit: `p99(run) < 500` once meant 500 ms, silently. Both readings are
 * offered, as for durations in a scenario; 0 reads the same in every unit and needs none.
 */
function bareTime(value: number): string {
  const plural = Math.abs(value) === 1 ? '' : 's';
  return `${value} has no unit: write "${value}s" (${value} second${plural}) or "${value}ms" (${value} millisecond${plural})`;
}

/** A bare rate of 1 or more: the fraction it says (at most 100 %) or the percentage it may mean. */
function bareRate(value: number): string {
  const whole = value === 1 ? ` or "100%" (all of them, the fraction 1)` : '';
  return `a plain rate is a fraction between 0 and 1, and ${value} is ambiguous: write "${value}%" (${value} percent)${whole}`;
}

/**
 * A parsed number with its unit text, converted into the metric's unit (ms, fraction, count).
 * `stored` reads a bare time as milliseconds (see ThresholdSource.stored).
 */
export function toTarget(value: number, unitText: string, unit: ThresholdUnit, stored = false): number {
  if (unit === 'ms') {
    if (unitText === '' && (value === 0 || stored)) return value;
    if (unitText === '') fail(bareTime(value));
    const factor = MS_PER_UNIT[unitText];
    if (factor === undefined) fail(`unit "${unitText}" is not a time unit; use us (or µs), ms, s or m`);
    return value * factor;
  }
  if (unit === 'ratio') {
    if (unitText === '%') return value / 100;
    if (unitText !== '')
      fail(`a rate is compared with a percentage (1%) or a fraction (0.01), not "${unitText}"`);
    // 1 reads as 100 % or as 1 %: both are plausible, so neither is taken (as for a bare time).
    if (value >= 1 && !stored) fail(bareRate(value));
    return value;
  }
  if (unitText !== '')
    fail(`a ${unit === 'rps' ? 'requests-per-second value' : 'count'} takes no unit, not "${unitText}"`);
  return value;
}

function parseOne(expression: string, where: string, stored: boolean, names: ThresholdNames): Threshold {
  const parts = expression.split(COMPARATOR);
  if (parts.length !== 3)
    fail('expected "<aggregation>(<metric>) <comparator> <value>", e.g. p99(run) < 500ms');
  const [left = '', comparatorText = '', right = ''] = parts;
  const call = CALL.exec(left);
  const bare = call ? null : BARE.exec(left);
  if (!call && !bare) fail(`cannot read "${left.trim()}"; write e.g. p99(run) or count(violations)`);
  const metric = (call ? call[2] : bare?.[1]) ?? '';
  const aggregation = call?.[1] !== undefined ? parseAggregation(call[1]) : bareAggregation(metric);
  const tags = parseTags(call ? call[3] : bare?.[2]);
  const spec = lookupMetric(metric, aggregation, names);
  checkTags(metric, spec, tags);
  const number = NUMBER_WITH_UNIT.exec(right);
  if (!number?.[1]) fail(`cannot read the value "${right.trim()}"; write e.g. 500ms, 30s, 1% or 0`);
  const unit = unitOf(spec, aggregation.kind);
  const target = toTarget(Number(number[1]), number[2] ?? '', unit, stored);
  return {
    expression: expression.trim(),
    where,
    aggregation,
    metric,
    tags,
    comparator: comparatorText as Comparator,
    target,
    unit,
  };
}

/** One source: its window split off, the rest parsed, then what a window or a live judge needs. */
function parseSource(source: ThresholdSource, where: string, names: ThresholdNames): Threshold {
  const split = splitWindow(source);
  if (typeof split === 'string') fail(split);
  const t: Threshold = {
    ...parseOne(split.core, where, source.stored === true, names),
    expression: split.expression,
  };
  if (split.windowS !== undefined) t.windowS = split.windowS;
  if (source.abortOnFail === true) t.abortOnFail = true;
  if (source.delayAbortEvalMs !== undefined) t.delayAbortEvalMs = source.delayAbortEvalMs;
  const problem = t.windowS !== undefined || t.abortOnFail ? perSecondProblem(t) : undefined;
  if (problem !== undefined) fail(problem);
  return t;
}

/**
 * Parses every expression, reporting all bad ones at once (DESIGN rule 5) as a ConfigError naming
 * the expression and what is wrong with it.
 */
export function parseThresholds(
  inputs: readonly (string | ThresholdSource)[],
  names: ThresholdNames = {},
): Threshold[] {
  const issues: ConfigIssue[] = [];
  const parsed: Threshold[] = [];
  for (const input of inputs) {
    const source = typeof input === 'string' ? { expression: input } : input;
    const { expression, where = 'threshold' } = source;
    try {
      parsed.push(parseSource(source, where, names));
    } catch (err) {
      if (!(err instanceof ThresholdSyntaxError)) throw err;
      issues.push({ where, message: `"${expression.trim()}": ${err.message}` });
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return parsed;
}

export function compare(value: number, comparator: Comparator, target: number): boolean {
  switch (comparator) {
    case '<':
      return value < target;
    case '<=':
      return value <= target;
    case '>':
      return value > target;
    case '>=':
      return value >= target;
    case '==':
      return value === target;
    case '!=':
      return value !== target;
  }
}
