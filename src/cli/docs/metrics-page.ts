import {
  THRESHOLD_METRICS,
  unitOf,
  VIOLATION_PREFIX,
  type AggregationKind,
  type MetricSpec,
} from '../../report/threshold-metrics.js';
import type { ThresholdUnit } from '../../report/threshold-unit.js';
import { cell, code, generatedNotice, page, table } from './markdown.js';

/** How each aggregation is written in an expression. */
const AGGREGATION_SYNTAX: Readonly<Record<AggregationKind, (metric: string) => string>> = {
  percentile: (m) => `p99(${m})`,
  count: (m) => `count(${m})`,
  rate: (m) => `rate(${m})`,
  rps: (m) => `rps(${m})`,
  value: (m) => m,
};

/** What a threshold's value is compared in, and how it is written. */
const UNITS: Readonly<Record<ThresholdUnit, { name: string; written: string }>> = {
  ms: { name: 'time', written: 'a number with `us` (or `µs`), `ms`, `s` or `m`: `500ms`, `2s`' },
  ratio: {
    name: 'share',
    written:
      'a percentage or a fraction below 1: `1%` or `0.01` (a bare 1 or more could mean either: refused)',
  },
  count: { name: 'count', written: 'a number without unit: `0`, `100`' },
  rps: { name: 'per second', written: 'requests per second, a number without unit: `50`' },
};

/** Each aggregation the metric takes, as written, with the unit its value is compared in. */
function aggregations(name: string, spec: MetricSpec): string {
  return spec.aggregations
    .map((a) => `${code(AGGREGATION_SYNTAX[a](name))} ${UNITS[unitOf(spec, a)].name}`)
    .join('<br>');
}

function tags(spec: MetricSpec): string {
  return Object.entries(spec.tags)
    .map(([tag, values]) => `${code(tag)}: ${values.map((v) => code(v)).join(' ')}`)
    .join('<br>');
}

/** docs/reference/metrics.md: every metric a threshold, an SLO or a compare gate can name. */
export function metricsPage(): string {
  const rows = [...THRESHOLD_METRICS.entries()].map(([name, spec]) => [
    code(name),
    cell(spec.describe),
    aggregations(name, spec),
    tags(spec),
  ]);
  const violations = THRESHOLD_METRICS.get('violations');
  if (violations)
    rows.push([
      code(`${VIOLATION_PREFIX}<id or glob>`),
      'violations of one check id, or of ids matching a glob (`violation:transition.*`); an id or glob that names no check is a configuration error',
      `${code(`count(${VIOLATION_PREFIX}transition.*)`)} ${UNITS.count.name}`,
      tags(violations),
    ]);
  return page([
    generatedNotice(['src/report/threshold-metrics.ts']),
    '# Threshold metric reference',
    'Every metric a threshold (`thresholds:` in a scenario, `--threshold`), a capacity SLO (`--slo`) or a compare gate (`delta(...)`) can name. A threshold is `<aggregation>(<metric>{tag=value,...}) <comparator> <value>`; the comparators are `<`, `<=`, `>`, `>=`, `==` and `!=`. `p99` stands for any percentile `pNN` (`p50`, `p95`, `p99.9`…) and for `max`, `min` and `mean`. A name not in this table is a configuration error (exit 2), never a silent pass. How thresholds decide a run: [Thresholds and metrics](../thresholds.md).',
    '## Metrics',
    table(['metric', 'what it counts', 'aggregations and their unit', 'tags'], rows),
    '## Units',
    'The value on the right of a comparison is written in the unit of its aggregation:',
    table(
      ['unit', 'written as'],
      Object.values(UNITS).map((u) => [u.name, u.written]),
    ),
  ]);
}
