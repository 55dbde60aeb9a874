import type { RunRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import { LatencyHistogram } from '../metrics/histogram.js';
import {
  FINAL_STATES,
  type FinalState,
  type MetricsData,
  type OperationData,
  type ViolationData,
} from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { RunMetrics } from '../metrics/run-metrics.js';
import { SparseHistogram } from '../metrics/sparse-histogram.js';
import { ViolationTally } from '../metrics/violation-tally.js';
import { measuredMs } from './measured-time.js';
import { scalingSummary } from './scaling-summary.js';
import { percentilesOf, percentilesOfEncoded } from './percentiles.js';
import { tokensSummary } from './token-summary.js';
import type {
  JobsSummary,
  OperationSummary,
  RunInfo,
  SeriesSummary,
  Summary,
  TimingSummary,
  ViolationSummary,
} from './summary.js';
import { SUMMARY_VERSION } from './summary.js';
import type { Threshold } from './threshold.js';
import { evaluateThresholds } from './threshold-evaluation.js';
import { judgeVerdict, type RunEnd } from './verdict.js';
import { knownSummary, runSetup, type CheckingSetup } from './known-summary.js';

export interface BuildSummaryInput {
  run: RunRecord;
  metrics: RunMetrics | MetricsData;
  /** Violations not already given to `metrics.addViolation` (e.g. from an offline check). */
  violations?: Iterable<Violation>;
  /** Ids of every check that ran, passing or not (for JUnit). */
  checks?: readonly string[];
  /** What each check id catches, for the reports (the report layer cannot read the check catalog). */
  checkDescriptions?: Record<string, string>;
  /** Why a check id could not judge, where the checker said (its `notes`). */
  checkNotes?: Record<string, string>;
  thresholds?: readonly Threshold[];
  /** The run's own duration when known; otherwise start to last record. */
  durationMs?: number;
  /** Observations judged per check id (the checker's coverage). */
  coverage?: Record<string, number>;
  /** How the run ended (default: completed). */
  end?: RunEnd;
  /** Why, when jobstorm itself failed (`shard-failed`). */
  failure?: string;
  /** The threshold that stopped the run (`aborted`). */
  aborted?: Summary['run']['aborted'];
  /** What the preflight found before the load. */
  preflight?: Summary['preflight'];
  /** Iterations cut at the graceful stop. */
  iterationsCut?: number;
  /** Arrivals that waited for a free connection. */
  connectionWait?: Summary['run']['connectionWait'];
  /** The generator's own figures. */
  generator?: Summary['run']['generator'];
}

/** One histogram of them all: the only one as it is (most operations have one outcome), else merged. */
function mergedOf(hs: readonly LatencyHistogram[]): LatencyHistogram {
  if (hs.length === 1 && hs[0]) return hs[0];
  const all = LatencyHistogram.create();
  for (const h of hs) all.merge(h);
  return all;
}

function operationSummary(d: OperationData, durationMs: number): OperationSummary {
  const intendedParts: LatencyHistogram[] = [];
  const sentParts: LatencyHistogram[] = [];
  const outcomes: OperationSummary['outcomes'] = {};
  for (const name of OUTCOMES) {
    const o = d.outcomes[name];
    if (!o) continue;
    const hi = LatencyHistogram.decode(o.intended);
    intendedParts.push(hi);
    sentParts.push(LatencyHistogram.decode(o.sent));
    outcomes[name] = { ...o, latency: percentilesOf(hi) };
  }
  const intended = mergedOf(intendedParts);
  const sent = mergedOf(sentParts);
  return {
    requests: d.requests,
    rate: durationMs > 0 ? Math.round((d.requests / (durationMs / 1000)) * 1000) / 1000 : 0,
    count429: outcomes['429']?.count ?? 0,
    count4xx: outcomes['4xx']?.count ?? 0,
    count5xx: outcomes['5xx']?.count ?? 0,
    countErrors: outcomes.error?.count ?? 0,
    byStatus: d.byStatus,
    errors: d.errors,
    reqBytes: d.reqBytes,
    resBytes: d.resBytes,
    latency: percentilesOf(intended),
    latencyFromSent: percentilesOf(sent),
    outcomes,
    ...(d.probe4xx ? { probe4xx: d.probe4xx } : {}),
  };
}

function timing(encoded: string): TimingSummary {
  return { percentiles: percentilesOfEncoded(encoded), histogram: encoded };
}

function jobsSummary(d: MetricsData['jobs']): JobsSummary {
  const all = LatencyHistogram.create();
  const e2e = {} as Record<FinalState, TimingSummary>;
  for (const s of FINAL_STATES) {
    all.merge(LatencyHistogram.decode(d.e2e[s]));
    e2e[s] = timing(d.e2e[s]);
  }
  return {
    submitted: d.submitted,
    retried: d.retried,
    lost: d.lost,
    unfinished: d.unfinished,
    untracked: d.untracked,
    byState: d.byState,
    delayTime: timing(d.delayTime),
    executionTime: timing(d.executionTime),
    firstChunk: timing(d.firstChunk),
    e2eAll: percentilesOf(all),
    e2e,
  };
}

/** Example times move from their shard's clock to this summary's `run.startMs`. */
function violationsSummary(data: readonly ViolationData[], startMs: number): ViolationSummary[] {
  return data.map((d) => ({
    id: d.id,
    severity: d.severity,
    count: d.count,
    ...(d.known ? { known: d.known } : {}),
    ...(d.entries ? { entries: d.entries } : {}),
    ...(d.exchanges ? { exchanges: d.exchanges } : {}),
    examples: d.examples.map(({ anchorMs, violation }) => {
      const shift = anchorMs - startMs;
      if (shift === 0) return violation;
      const timeline = violation.evidence.timeline?.map((e) => ({ ...e, at: e.at + shift }));
      return {
        ...violation,
        at: violation.at + shift,
        evidence: timeline ? { ...violation.evidence, timeline } : violation.evidence,
      };
    }),
  }));
}

function percentileOrNull(encoded: string, p: number): number | null {
  if (encoded === '') return null;
  return Math.round(SparseHistogram.decode(encoded).percentileMs(p) * 1000) / 1000;
}

/**
 * Each second's p50 and p99, by its encoding. A second that is over never changes, and the live
 * dashboard summarizes the run once a second: without this every update decoded every second of
 * the run again (its cost growing with the run's length). Cleared whole when full: a cache, never
 * a second source of truth (the same encoding always gives the same figures).
 */
const secondPercentiles = new Map<string, readonly [number | null, number | null]>();
const MAX_CACHED_SECONDS = 16_384;

function percentilesOfSecond(encoded: string): readonly [number | null, number | null] {
  let p = secondPercentiles.get(encoded);
  if (!p) {
    p = [percentileOrNull(encoded, 50), percentileOrNull(encoded, 99)];
    if (secondPercentiles.size >= MAX_CACHED_SECONDS) secondPercentiles.clear();
    secondPercentiles.set(encoded, p);
  }
  return p;
}

function seriesSummary(d: MetricsData['series']): SeriesSummary {
  const ops: SeriesSummary['ops'] = {};
  for (const [op, o] of Object.entries(d.ops)) {
    const seconds = o.latency.map(percentilesOfSecond);
    ops[op] = { ...o, p50: seconds.map((p) => p[0]), p99: seconds.map((p) => p[1]) };
  }
  return { ...d, ops };
}

/** Builds the summary from encoded metrics; thresholds are evaluated on the result. */
export function summarize(
  data: MetricsData,
  run: RunInfo,
  checks: readonly string[],
  thresholds: readonly Threshold[],
  coverage: Record<string, number> = {},
  setup: CheckingSetup = {},
): Summary {
  const operations: Summary['operations'] = {};
  const measured = measuredMs({ run, ...(data.warmup ? { warmup: data.warmup } : {}) });
  for (const [op, d] of Object.entries(data.operations)) operations[op] = operationSummary(d, measured);
  const violations = violationsSummary(data.violations, run.startMs);
  const summary: Summary = {
    version: SUMMARY_VERSION,
    run,
    operations,
    jobs: jobsSummary(data.jobs),
    errors: data.errors,
    dropped: data.dropped,
    ...(data.stalls?.length
      ? {
          stalls: data.stalls.map((x) => ({
            at: x.atMs - run.startMs,
            durationMs: x.durationMs,
            inFlight: x.inFlight,
            ...(x.failed ? { failed: x.failed } : {}),
          })),
        }
      : {}),
    ...(data.generatorLimited?.length
      ? {
          generatorLimited: data.generatorLimited.map(({ atMs, ...x }) => ({ at: atMs - run.startMs, ...x })),
        }
      : {}),
    ...(data.warmup ? { warmup: { ...data.warmup } } : {}),
    webhooks: data.webhooks,
    violations,
    checks: [...new Set([...checks, ...violations.map((v) => v.id)])].sort(),
    thresholds: [],
    series: seriesSummary(data.series),
    coverage,
    verdict: { status: 'passed', reasons: [] },
  };
  // Before the verdict, which tells known findings from new ones and says which entries matched.
  if (setup.skipped) summary.skipped = setup.skipped;
  if (setup.known) summary.known = knownSummary(setup.known, violations);
  if (data.tokens) summary.tokens = tokensSummary(data.tokens, measuredMs(summary));
  if (data.scaling) summary.scaling = scalingSummary(data.scaling, run.startMs, data.jobs.byState.COMPLETED);
  summary.thresholds = evaluateThresholds(thresholds, summary);
  summary.verdict = judgeVerdict(summary);
  return summary;
}

export function runInfo(
  run: RunRecord,
  data: MetricsData,
  durationMs?: number,
  ended: RunEnd = 'completed',
): RunInfo {
  const end = data.wallEndMs ?? run.startedAtMs;
  return {
    id: run.runId,
    scenario: run.scenario,
    target: run.target,
    start: new Date(run.startedAtMs).toISOString(),
    startMs: run.startedAtMs,
    durationMs: durationMs ?? Math.max(0, end - run.startedAtMs),
    shard: run.shard ?? null,
    shards: run.shard === undefined ? [] : [run.shard],
    ownsEndpoint: run.ownsEndpoint,
    end: ended,
  };
}

/** The summary of one run (or one shard): metrics, violations, thresholds and the run record. */
export function buildSummary(input: BuildSummaryInput): Summary {
  let data = input.metrics instanceof RunMetrics ? input.metrics.toJSON() : input.metrics;
  if (input.violations) {
    const extra = new ViolationTally();
    for (const v of input.violations) extra.add(v, input.run.startedAtMs);
    data = { ...data, violations: ViolationTally.fromJSON(data.violations).merge(extra).toJSON() };
  }
  const info = runInfo(input.run, data, input.durationMs, input.end);
  if (input.iterationsCut) info.iterationsCut = input.iterationsCut;
  if (input.connectionWait) info.connectionWait = input.connectionWait;
  if (input.generator) info.generator = input.generator;
  if (input.failure !== undefined) info.failure = input.failure;
  if (input.aborted) info.aborted = input.aborted;
  const checks = input.checks ?? [];
  const coverage = input.coverage ?? {};
  const setup = runSetup(input.run, [...new Set([...checks, ...Object.keys(coverage)])]);
  const summary = summarize(data, info, checks, input.thresholds ?? [], coverage, setup);
  if (input.checkDescriptions) summary.checkDescriptions = input.checkDescriptions;
  if (input.checkNotes && Object.keys(input.checkNotes).length > 0) summary.checkNotes = input.checkNotes;
  return input.preflight ? { ...summary, preflight: input.preflight } : summary;
}
