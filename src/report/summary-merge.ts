import { tokenDataOf } from './token-summary.js';
import { mergeConnectionWaits } from '../core/connection-wait.js';
import type { RunEnd } from './verdict.js';
import { ConfigError } from '../core/config-error.js';
import { MERGED_JOIN, mergeProblems } from './merge-compatibility.js';
import {
  FINAL_STATES,
  METRICS_DATA_VERSION,
  type FinalState,
  type MetricsData,
  type OperationData,
} from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { RunMetrics } from '../metrics/run-metrics.js';
import { mergeCaps } from '../core/run-limits.js';
import type { OperationSummary, RunInfo, Summary } from './summary.js';
import { summarize } from './summary-builder.js';
import { mergedSetup } from './known-summary.js';
import { scalingDataOf } from './scaling-summary.js';
import { parseThresholds, type Threshold } from './threshold.js';
import { causeEnds, missingShards, togetherOf } from './shard-merge.js';

function operationData(o: OperationSummary): OperationData {
  const outcomes: OperationData['outcomes'] = {};
  for (const name of OUTCOMES) {
    const x = o.outcomes[name];
    if (x) outcomes[name] = { count: x.count, intended: x.intended, sent: x.sent };
  }
  return {
    requests: o.requests,
    byStatus: o.byStatus,
    errors: o.errors,
    outcomes,
    reqBytes: o.reqBytes,
    resBytes: o.resBytes,
    ...(o.probe4xx ? { probe4xx: o.probe4xx } : {}),
  };
}

/** The encoded metrics a summary carries: the inverse of `summarize`, so summaries merge exactly. */
export function metricsDataOf(s: Summary): MetricsData {
  const operations: MetricsData['operations'] = {};
  for (const [op, o] of Object.entries(s.operations)) operations[op] = operationData(o);
  const e2e = {} as Record<FinalState, string>;
  for (const st of FINAL_STATES) e2e[st] = s.jobs.e2e[st].histogram;
  const ops: MetricsData['series']['ops'] = {};
  for (const [op, o] of Object.entries(s.series.ops))
    ops[op] = {
      requests: o.requests,
      latency: o.latency,
      ...(o.outcomes ? { outcomes: o.outcomes } : {}),
      ...(o.unanswered ? { unanswered: o.unanswered } : {}),
    };
  return {
    version: METRICS_DATA_VERSION,
    wallStartMs: s.run.startMs,
    wallEndMs: s.run.startMs + s.run.durationMs,
    operations,
    jobs: {
      submitted: s.jobs.submitted,
      retried: s.jobs.retried,
      lost: s.jobs.lost,
      unfinished: s.jobs.unfinished,
      untracked: s.jobs.untracked,
      byState: s.jobs.byState,
      delayTime: s.jobs.delayTime.histogram,
      executionTime: s.jobs.executionTime.histogram,
      firstChunk: s.jobs.firstChunk.histogram,
      e2e,
    },
    errors: s.errors,
    dropped: s.dropped,
    ...(s.stalls
      ? {
          stalls: s.stalls.map((x) => ({
            atMs: s.run.startMs + x.at,
            durationMs: x.durationMs,
            inFlight: x.inFlight,
            ...(x.failed ? { failed: x.failed } : {}),
          })),
        }
      : {}),
    ...(s.generatorLimited
      ? { generatorLimited: s.generatorLimited.map(({ at, ...x }) => ({ atMs: s.run.startMs + at, ...x })) }
      : {}),
    ...(s.warmup ? { warmup: { ...s.warmup } } : {}),
    ...(s.scaling ? { scaling: scalingDataOf(s.scaling) } : {}),
    webhooks: s.webhooks,
    violations: s.violations.map((v) => ({
      ...v,
      examples: v.examples.map((violation) => ({ anchorMs: s.run.startMs, violation })),
    })),
    series: { ...s.series, ops },
    ...(s.tokens ? { tokens: tokenDataOf(s.tokens) } : {}),
  };
}

function joined(values: readonly string[]): string {
  return [...new Set(values)].join(MERGED_JOIN);
}

function mergedRun(
  summaries: readonly Summary[],
  forcedNow: readonly string[],
  missing: readonly string[],
): RunInfo {
  const startMs = Math.min(...summaries.map((s) => s.run.startMs));
  const endMs = Math.max(...summaries.map((s) => s.run.startMs + s.run.durationMs));
  const shards = [
    ...new Set(summaries.flatMap((s) => (s.run.shard !== null ? [s.run.shard] : s.run.shards))),
  ].sort();
  const forced = [...new Set([...summaries.flatMap((s) => s.run.forced ?? []), ...forcedNow])];
  // Each shard had its own event loop: the busiest one speaks for the whole.
  const figures = summaries.flatMap((s) => (s.run.generator ? [s.run.generator] : []));
  const generator = figures.length
    ? {
        latenessP99Ms: Math.max(...figures.map((g) => g.latenessP99Ms)),
        loopDelayP99Ms: Math.max(...figures.map((g) => g.loopDelayP99Ms)),
        busyMax: Math.max(...figures.map((g) => g.busyMax)),
      }
    : undefined;
  const connectionWait = mergeConnectionWaits(summaries.map((s) => s.run.connectionWait));
  const failures = summaries.flatMap((s) => (s.run.failure === undefined ? [] : [s.run.failure]));
  const failure = failures.length > 0 ? joined(failures) : undefined;
  return {
    id: joined(summaries.map((s) => s.run.id)),
    scenario: joined(summaries.map((s) => s.run.scenario)),
    target: joined(summaries.map((s) => s.run.target)),
    start: new Date(startMs).toISOString(),
    startMs,
    durationMs: endMs - startMs,
    shard: null,
    shards,
    ownsEndpoint: summaries.every((s) => s.run.ownsEndpoint),
    end:
      missing.length > 0
        ? worstEnd(['shard-failed', ...causeEnds(summaries)])
        : worstEnd(causeEnds(summaries)),
    ...(forced.length ? { forced } : {}),
    ...(generator ? { generator } : {}),
    ...(connectionWait ? { connectionWait } : {}),
    failure,
    ...abortedOf(summaries),
    ...togetherOf(summaries, missing),
  };
}

/** The earliest abort among the shards, when one was stopped by its threshold. */
function abortedOf(summaries: readonly Summary[]): Pick<RunInfo, 'aborted'> {
  const all = summaries.flatMap((s) => (s.run.aborted ? [s.run.aborted] : []));
  const first = [...all].sort((a, b) => a.at - b.at)[0];
  return first ? { aborted: { ...first } } : {};
}

/** A merge is as partial as its most partial shard. */
function worstEnd(ends: readonly RunEnd[]): RunEnd {
  for (const e of ['output-failed', 'shard-failed', 'interrupted', 'aborted', 'unreachable'] as const)
    if (ends.includes(e)) return e;
  return 'completed';
}

/** Observations judged add up across shards. */
function mergedCoverage(summaries: readonly Summary[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of summaries) for (const [id, n] of Object.entries(s.coverage)) out[id] = (out[id] ?? 0) + n;
  return out;
}

export interface MergeOptions {
  /** Extra thresholds (`--threshold`), evaluated with those the summaries carry. */
  thresholds?: readonly Threshold[];
  /** Names for the inputs in error messages (usually their file paths). */
  names?: readonly string[];
  /**
   * Merge different runs deliberately (`--force`): different scenarios, targets or runs are merged
   * and listed in `run.forced`. The same run or shard twice is refused even so.
   */
  force?: boolean;
  /** Inputs that should have held a shard's summary and did not (the shard failed or never ran). */
  missing?: readonly string[];
}

/**
 * Merges shard summaries exactly: counts add, histograms merge, series align by wall-clock second,
 * violations concatenate (examples: the earliest few overall). Thresholds the shards carried are
 * re-evaluated on the merged data, together with any given here. Summaries that are not parts of
 * one run are refused (ConfigError naming both inputs) unless `force` says they are meant.
 */
export function mergeSummaries(summaries: readonly Summary[], options: MergeOptions = {}): Summary {
  const first = summaries[0];
  if (!first)
    throw new ConfigError([{ where: 'merge', message: 'nothing to merge: give at least one summary' }]);
  const problems = mergeProblems(
    summaries,
    summaries.map((_, i) => options.names?.[i] ?? `summary ${String(i + 1)}`),
  );
  if (problems.refused.length) throw new ConfigError(problems.refused);
  if (problems.forceable.length && !options.force) {
    throw new ConfigError([
      ...problems.forceable,
      { where: 'merge', message: 'these are not shards of one run; add --force to merge them anyway' },
    ]);
  }
  const merged = new RunMetrics();
  for (const s of summaries) merged.merge(RunMetrics.fromJSON(metricsDataOf(s)));
  const carried = summaries.flatMap((s, i) =>
    s.thresholds.map((t, j) => ({
      expression: t.expression,
      where: `${options.names?.[i] ?? `summary ${i + 1}`} thresholds[${j}]`,
      stored: true,
    })),
  );
  const seen = new Set((options.thresholds ?? []).map((t) => t.expression));
  const unique = carried.filter((c) => !seen.has(c.expression) && seen.add(c.expression));
  const thresholds = [...parseThresholds(unique), ...(options.thresholds ?? [])];
  const checks = summaries.flatMap((s) => s.checks);
  const described = summaries.find((s) => s.checkDescriptions)?.checkDescriptions;
  const summary = summarize(
    merged.toJSON(),
    mergedRun(
      summaries,
      problems.forceable.map((p) => p.message),
      // A forced merge is not one run's shards: none of them is missing, only inputs that held nothing.
      options.force ? [...(options.missing ?? [])] : missingShards(summaries, options.missing ?? []),
    ),
    checks,
    thresholds,
    mergedCoverage(summaries),
    mergedSetup(summaries),
  );
  // Each shard had its own caps: their limits and what they dropped add up.
  const caps = mergeCaps(...summaries.map((s) => s.caps));
  const capped = caps.length > 0 ? { ...summary, caps } : summary;
  return described ? { ...capped, checkDescriptions: described } : capped;
}
