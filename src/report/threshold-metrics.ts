import { OPERATIONS } from '../core/operation.js';
import { FINAL_STATES } from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import type { ThresholdUnit } from './threshold-unit.js';

/**
 * The metrics a threshold can name, with the aggregations and tags each accepts. Anything not in
 * this table is a configuration error, never a silent pass.
 */
export type AggregationKind = 'percentile' | 'count' | 'rate' | 'rps' | 'value';

export interface MetricSpec {
  family:
    'latency' | 'job-timing' | 'request-rate' | 'job-rate' | 'counter' | 'violations' | 'scaling' | 'tokens';
  /** `value` is a figure named bare (`drainTime < 60s`); the others are written as calls. */
  aggregations: readonly AggregationKind[];
  /** The unit of a `value` or a percentile, where the family does not imply it. */
  unit?: ThresholdUnit;
  /** Allowed tag names and values. */
  tags: Readonly<Record<string, readonly string[]>>;
  describe: string;
}

const OUTCOME_TAG = { status: OUTCOMES as readonly string[], from: ['intended', 'sent'] };
const REQUEST_OUTCOMES = ['429', '2xx', '4xx', '5xx', 'errors'] as const;
const JOB_RATES = ['completed', 'failed', 'cancelled', 'timed_out', 'lost'] as const;
const JOB_COUNTS = [
  'jobs',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
  'lost',
  'unfinished',
  'retried',
] as const;

function buildCatalogue(): Map<string, MetricSpec> {
  const m = new Map<string, MetricSpec>();
  for (const op of OPERATIONS) {
    m.set(op, {
      family: 'latency',
      aggregations: ['percentile', 'count', 'rps'],
      tags: OUTCOME_TAG,
      describe: `latency of ${op} (ms)`,
    });
  }
  m.set('latency', {
    family: 'latency',
    aggregations: ['percentile', 'count', 'rps'],
    tags: { ...OUTCOME_TAG, op: OPERATIONS },
    describe: 'latency of every operation (ms)',
  });
  m.set('requests', {
    family: 'latency',
    aggregations: ['count', 'rps'],
    tags: { ...OUTCOME_TAG, op: OPERATIONS },
    describe: 'requests',
  });
  m.set('e2e', {
    family: 'job-timing',
    aggregations: ['percentile', 'count'],
    tags: { status: FINAL_STATES },
    describe: 'submit → final (ms)',
  });
  for (const name of ['delayTime', 'executionTime', 'firstChunk']) {
    m.set(name, {
      family: 'job-timing',
      aggregations: ['percentile', 'count'],
      tags: {},
      describe: `${name} (ms)`,
    });
  }
  for (const name of REQUEST_OUTCOMES) {
    m.set(name, {
      family: 'request-rate',
      aggregations: ['rate', 'count'],
      tags: { op: OPERATIONS },
      describe: `${name} responses`,
    });
  }
  for (const name of JOB_RATES) {
    m.set(name, { family: 'job-rate', aggregations: ['rate', 'count'], tags: {}, describe: `jobs ${name}` });
  }
  for (const name of JOB_COUNTS) {
    if (!m.has(name))
      m.set(name, { family: 'counter', aggregations: ['count'], tags: {}, describe: `jobs ${name}` });
  }
  m.set('dropped', { family: 'counter', aggregations: ['count'], tags: {}, describe: 'dropped arrivals' });
  m.set('webhooks', {
    family: 'counter',
    aggregations: ['count'],
    tags: {},
    describe: 'webhook deliveries received',
  });
  m.set('violations', {
    family: 'violations',
    aggregations: ['count'],
    tags: { severity: ['error', 'warning'] },
    describe: 'violations that fail the run (findings a known deviation accepts are not counted)',
  });
  for (const [name, spec] of SCALING_METRICS) m.set(name, spec);
  for (const [name, spec] of TOKEN_METRICS) m.set(name, spec);
  return m;
}

/** The scaling figures (summary `scaling.figures`): measured from the /health samples, or not evaluated. */
const SCALING_METRICS: readonly [string, MetricSpec][] = [
  [
    'scaleUpLag',
    scaling(['percentile', 'count'], 'ms', 'queued work beyond the ready workers → more workers ready (ms)'),
  ],
  ['drainTime', scaling(['value'], 'ms', 'last arrival → no job queued or in progress (ms)')],
  ['coldStartShare', scaling(['value'], 'ratio', 'share of delayTime spent while workers were initializing')],
  [
    'peakWorkers',
    scaling(['value'], 'count', 'most workers (idle + running + initializing) in a /health sample'),
  ],
  ['meanWorkers', scaling(['value'], 'count', 'worker-seconds over the sampled time')],
  [
    'workerSeconds',
    scaling(['value'], 'count', 'idle + running + initializing workers, integrated over the /health samples'),
  ],
  ['cost', scaling(['value'], 'count', 'worker-seconds × scaling.pricePerWorkerSecond')],
  ['costPer1kJobs', scaling(['value'], 'count', 'cost per 1,000 completed jobs')],
];

/** Streamed LLM answers (summary `tokens`, docs/llm.md), by `{path=openai|stream}`. */
const PATH_TAG = { path: ['openai', 'stream'] };
const TOKEN_METRICS: readonly [string, MetricSpec][] = [
  ['ttft', tokens(['percentile', 'count'], 'ms', PATH_TAG, 'time to first token of streamed answers (ms)')],
  ['itl', tokens(['percentile', 'count'], 'ms', PATH_TAG, 'inter-token latency, by llm.definitions (ms)')],
  ['tpot', tokens(['percentile', 'count'], 'ms', PATH_TAG, 'time per output token, by llm.definitions (ms)')],
  [
    'outputTokens',
    tokens(['count', 'rps'], 'count', PATH_TAG, 'output tokens (or chunks) of streamed answers'),
  ],
  [
    'goodput',
    tokens(['rate', 'rps', 'count'], 'count', {}, 'streamed requests that met every llm.objectives'),
  ],
];

function tokens(
  aggregations: readonly AggregationKind[],
  unit: ThresholdUnit,
  tags: MetricSpec['tags'],
  describe: string,
): MetricSpec {
  return { family: 'tokens', aggregations, tags, unit, describe };
}

function scaling(
  aggregations: readonly AggregationKind[],
  unit: ThresholdUnit,
  describe: string,
): MetricSpec {
  return { family: 'scaling', aggregations, tags: {}, unit, describe };
}

export const THRESHOLD_METRICS: ReadonlyMap<string, MetricSpec> = buildCatalogue();

/** `violation:<check id or glob>`, e.g. `violation:transition.*`. */
export const VIOLATION_PREFIX = 'violation:';

export function unitOf(spec: MetricSpec, aggregation: AggregationKind): ThresholdUnit {
  if (aggregation === 'count') return 'count';
  if (aggregation === 'rate') return 'ratio';
  if (aggregation === 'rps') return 'rps';
  if (spec.unit !== undefined) return spec.unit;
  return spec.family === 'latency' || spec.family === 'job-timing' ? 'ms' : 'count';
}

/** Every name a user could mean, for suggestions. */
export function metricNames(): string[] {
  return [...THRESHOLD_METRICS.keys(), `${VIOLATION_PREFIX}<id or glob>`];
}
