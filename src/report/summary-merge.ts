import { ConfigError } from '../core/config-error.js';
import { FINAL_STATES, METRICS_DATA_VERSION, type FinalState, type MetricsData, type OperationData } from '../metrics/metrics-data.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { RunMetrics } from '../metrics/run-metrics.js';
import type { OperationSummary, RunInfo, Summary } from './summary.js';
import { summarize } from './summary-builder.js';
import { parseThresholds, type Threshold } from './threshold.js';

function operationData(o: OperationSummary): OperationData {
  const outcomes: OperationData['outcomes'] = {};
  for (const name of OUTCOMES) {
    const x = o.outcomes[name];
    if (x) outcomes[name] = { count: x.count, intended: x.intended, sent: x.sent };
  }
  return { requests: o.requests, byStatus: o.byStatus, errors: o.errors, outcomes, reqBytes: o.reqBytes, resBytes: o.resBytes };
}

/** The encoded metrics a summary carries: the inverse of `summarize`, so summaries merge exactly. */
export function metricsDataOf(s: Summary): MetricsData {
  const operations: MetricsData['operations'] = {};
  for (const [op, o] of Object.entries(s.operations)) operations[op] = operationData(o);
  const e2e = {} as Record<FinalState, string>;
  for (const st of FINAL_STATES) e2e[st] = s.jobs.e2e[st].histogram;
  const ops: MetricsData['series']['ops'] = {};
  for (const [op, o] of Object.entries(s.series.ops)) ops[op] = { requests: o.requests, latency: o.latency };
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
    webhooks: s.webhooks,
    violations: s.violations.map((v) => ({ ...v, examples: v.examples.map((violation) => ({ anchorMs: s.run.startMs, violation })) })),
    series: { ...s.series, ops },
    ...(s.tokens
      ? { tokens: { streams: s.tokens.streams, tokens: s.tokens.tokens, firstToken: s.tokens.firstToken.histogram, tokensPerSecond: s.tokens.tokensPerSecond.histogram, tokenGap: s.tokens.tokenGap.histogram, maxGap: s.tokens.maxGap.histogram } }
      : {}),
  };
}

function joined(values: readonly string[]): string {
  return [...new Set(values)].join(' + ');
}

function mergedRun(summaries: readonly Summary[]): RunInfo {
  const startMs = Math.min(...summaries.map((s) => s.run.startMs));
  const endMs = Math.max(...summaries.map((s) => s.run.startMs + s.run.durationMs));
  const shards = [...new Set(summaries.flatMap((s) => (s.run.shard !== null ? [s.run.shard] : s.run.shards)))].sort();
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
  };
}

export interface MergeOptions {
  /** Extra thresholds (`--threshold`), evaluated with those the summaries carry. */
  thresholds?: readonly Threshold[];
  /** Names for the inputs in error messages (usually their file paths). */
  names?: readonly string[];
}

/**
 * Merges shard summaries exactly: counts add, histograms merge, series align by wall-clock second,
 * violations concatenate (examples: the earliest few overall). Thresholds the shards carried are
 * re-evaluated on the merged data, together with any given here.
 */
export function mergeSummaries(summaries: readonly Summary[], options: MergeOptions = {}): Summary {
  const first = summaries[0];
  if (!first) throw new ConfigError([{ where: 'merge', message: 'nothing to merge: give at least one summary' }]);
  const merged = new RunMetrics();
  for (const s of summaries) merged.merge(RunMetrics.fromJSON(metricsDataOf(s)));
  const carried = summaries.flatMap((s, i) =>
    s.thresholds.map((t, j) => ({ expression: t.expression, where: `${options.names?.[i] ?? `summary ${i + 1}`} thresholds[${j}]` })),
  );
  const seen = new Set((options.thresholds ?? []).map((t) => t.expression));
  const unique = carried.filter((c) => !seen.has(c.expression) && seen.add(c.expression));
  const thresholds = [...parseThresholds(unique), ...(options.thresholds ?? [])];
  const checks = summaries.flatMap((s) => s.checks);
  return summarize(merged.toJSON(), mergedRun(summaries), checks, thresholds);
}
