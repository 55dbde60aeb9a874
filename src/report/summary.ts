import type { OutputPath, TokenObjectives } from '../metrics/llm-stats.js';
import type { OutputCount, TokenDefinition } from '../metrics/token-timing.js';
import type { ConnectionWait } from '../core/connection-wait.js';
import type { ExportKind } from '../core/export-kind.js';
import type { WorkerRow } from './workers-section.js';
import type { ScalingSummary } from './scaling-summary.js';
import type { RunEnd, Verdict } from './verdict-status.js';
import type { Violation, Severity } from '../core/violation.js';
import type { KnownResults } from '../core/known-deviation.js';
import type { CapCount } from '../core/run-limits.js';
import type {
  ExchangeCount,
  FinalState,
  JobsData,
  OperationData,
  OutcomeData,
  SeriesData,
  WarmupData,
} from '../metrics/metrics-data.js';
import type { Outcome } from '../metrics/outcome.js';

/**
 * summary.json: what a run leaves behind for people and scripts. Its top level is stable and
 * versioned; docs/summary-format.md documents every field. It embeds the encoded metrics, so every
 * other report (and a shard merge) is rebuilt from this file alone.
 */
export const SUMMARY_VERSION = 1;

/** Milliseconds. `count` is how many values the histogram holds; all zero when it holds none. */
export interface Percentiles {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export interface RunInfo {
  id: string;
  scenario: string;
  /** Base URL, never with credentials. */
  target: string;
  /** ISO 8601 wall-clock start. */
  start: string;
  startMs: number;
  durationMs: number;
  /** `i/n` for a shard's own summary; null for a whole run or a merge. */
  shard: string | null;
  /** Shards merged into this summary (empty for an unsharded run). */
  shards: string[];
  ownsEndpoint: boolean;
  /** How the run ended: a summary of an interrupted or unreachable run is partial. */
  end: RunEnd;
  /** Flow iterations cut when the graceful stop after the last arrival ran out. */
  iterationsCut?: number;
  /**
   * Arrivals that came while every connection carried a request and waited for one before their
   * flow started (their latency from the intended start includes it), and the longest wait.
   */
  connectionWait?: ConnectionWait;
  /** The generator's own figures (its event loop and the arrivals' lateness), when the runner measured them. */
  generator?: { latenessP99Ms: number; loopDelayP99Ms: number; busyMax: number };
  /** Set only on a merge made with `--force`: why its inputs were not parts of one run. */
  forced?: string[];
  /** Why the run stopped early when jobstorm itself failed (`end: shard-failed`): one line. */
  failure?: string;
  /** The threshold with abortOnFail that stopped the run (`end: aborted`), and when (seconds from the start). */
  aborted?: RunAbort;
  /** The instant the shards agreed to start at (`--barrier`, `--start-at`); `lateMs` when this one began after it. */
  startAt?: { at: string; via: 'barrier' | 'start-at'; lateMs?: number };
  /** A shard that ended early and stopped this one (on a merge: the one that stopped the others), and why. */
  stoppedBy?: { shard: string; reason: string; at?: string };
  /** On a merge: ms between the earliest and the latest shard start. */
  startSpreadMs?: number;
  /** On a merge: shards of the run that left no summary (failed, or never ran): the merge is partial. */
  missingShards?: string[];
}

export interface RunAbort {
  threshold: string;
  /** Whole seconds from the run's start second, as t+Ns. */
  at: number;
}

export interface OutcomeSummary extends OutcomeData {
  latency: Percentiles;
}

export interface OperationSummary extends Omit<OperationData, 'outcomes'> {
  /** Requests per second over the run's duration. */
  rate: number;
  count429: number;
  count4xx: number;
  count5xx: number;
  /** Transport errors (no response). */
  countErrors: number;
  /** All outcomes, from the intended start. */
  latency: Percentiles;
  /** All outcomes, from the actual send. */
  latencyFromSent: Percentiles;
  outcomes: Partial<Record<Outcome, OutcomeSummary>>;
}

export interface TimingSummary {
  percentiles: Percentiles;
  histogram: string;
}

export interface JobsSummary extends Omit<JobsData, 'delayTime' | 'executionTime' | 'firstChunk' | 'e2e'> {
  delayTime: TimingSummary;
  executionTime: TimingSummary;
  firstChunk: TimingSummary;
  /** All final states together. */
  e2eAll: Percentiles;
  e2e: Record<FinalState, TimingSummary>;
}

export interface ViolationSummary {
  id: string;
  severity: Severity;
  /** Every finding of the id, known ones included. */
  count: number;
  /** Of `count`, the findings accepted as known deviations: shown and counted, they fail nothing. Absent: none. */
  known?: number;
  /** Findings each entry of `known.entries` matched, by its index; absent when none matched. */
  entries?: Record<string, number>;
  /** New findings by the operation and status of the exchange each cites; absent when none is new. */
  exchanges?: ExchangeCount[];
  /** The earliest few, new findings first; `at` and timeline times are ms since `run.startMs`. */
  examples: Violation[];
}

/** The run's accepted deviations (`--known`, `checks.known`) and what became of each. */
export type KnownSummary = KnownResults;

export type { ThresholdUnit } from './threshold-unit.js';
import type { ThresholdUnit } from './threshold-unit.js';

export interface ThresholdResult {
  expression: string;
  /** null when there was no data to compute it from (which fails the threshold); the worst window's for a windowed one. */
  value: number | null;
  ok: boolean;
  unit: ThresholdUnit;
  /** A threshold held over every window (`over 30s`): how its windows went. */
  window?: ThresholdWindowResult;
  /** A windowed threshold's aggregate over the whole measured run and whether that alone would hold: only windows may fail. */
  wholeRun?: { value: number | null; ok: boolean };
  /** Why the value is null when its figure was not measured (a scaling figure): not evaluated, not passed. */
  notEvaluated?: string;
}

/** The windows of a windowed threshold; times are whole seconds from the run's start second (t+Ns). */
export interface ThresholdWindowResult {
  /** The window's length. */
  seconds: number;
  /** Windows that had data to judge, and how many of them broke the threshold. */
  judged: number;
  failed: number;
  /** The worst window (its first second) and its value; null when none had data. */
  worst: { at: number; value: number } | null;
  /** Seconds covered by failing windows, as [from, to) spans, for the charts. */
  failing: [number, number][];
}

export interface OperationSeriesSummary {
  requests: number[];
  latency: string[];
  outcomes?: Partial<Record<Outcome, number[]>>;
  unanswered?: string[];
  p50: (number | null)[];
  p99: (number | null)[];
}

export interface SeriesSummary extends Omit<SeriesData, 'ops'> {
  ops: Record<string, OperationSeriesSummary>;
}

/**
 * The token timings of streamed answers (docs/llm.md) as summary.json gives them: one group per
 * path (`openai`, `stream`) and count (`tokens`, `chunks`), never mixed, and goodput.
 */
export interface TokenGroupSummary {
  path: OutputPath;
  counted: OutputCount;
  answers: number;
  outputTokens: number;
  /** Output tokens (or chunks) per second over the measured time, all answers of the group. */
  throughput: number | null;
  ttft: TimingSummary;
  itl: TimingSummary;
  tpot: TimingSummary;
  e2e: TimingSummary;
  /** Each answer's output tokens (or chunks) per second; values are per second, not ms. */
  perSecond: TimingSummary;
  /** `/stream` jobs: TTFT as the queue wait (`delayTime`) and the time from there to the first token. */
  queue?: TimingSummary;
  toFirstAfterQueue?: TimingSummary;
  /**
   * The queue wait split per job by the `/health` samples: the part while workers were
   * initializing (cold start) and the rest; absent when no sample could tell.
   */
  queueCold?: TimingSummary;
  queueWarm?: TimingSummary;
}

export interface TokensSummary {
  /** Whose ITL and TPOT formulas the figures follow. */
  definition: TokenDefinition;
  objectives: TokenObjectives;
  groups: TokenGroupSummary[];
  /**
   * Streamed requests judged (an `/openai/*` stream asked for; a job read through `/stream` that
   * ended), those that met every objective, their share and their rate over the measured time.
   */
  goodput: { judged: number; good: number; share: number | null; perSecond: number | null };
}

/** One live metrics output of the run (`--export`): how many flushes got through and how many did not. */
export interface ExportSummary {
  kind: ExportKind;
  /** Origin and path only, never credentials or query. */
  url: string;
  sent: number;
  dropped: number;
  lastError?: string;
}

export interface StallSummary {
  at: number;
  durationMs: number;
  inFlight: number;
  /** Requests that ended without an answer during it, by error kind (`refused`: the target was down). */
  failed?: Record<string, number>;
}

export interface Summary {
  version: typeof SUMMARY_VERSION;
  run: RunInfo;
  operations: Record<string, OperationSummary>;
  jobs: JobsSummary;
  /** Transport errors by kind, all operations. */
  errors: Record<string, number>;
  dropped: { total: number; byFlow: Record<string, number> };
  /** Present when the target stalled: no answer at all while requests waited (`at`: ms from the run's start). */
  stalls?: StallSummary[];
  /**
   * Present when jobstorm itself was the bottleneck: each stretch (`at`: ms from the run's start)
   * where its event loop was saturated and work waited for it. Latencies then include its own queueing.
   */
  generatorLimited?: GeneratorLimitSummary[];
  /**
   * Present when the run had a warm-up (the scenario's `warmup`, `--warmup`): its first `ms` were
   * sent and checked but not measured. `operations`, `jobs`, `errors`, `dropped` and the thresholds
   * are of the rest; the per-second `series` and the violations cover the whole run.
   */
  warmup?: WarmupData;
  webhooks: { received: number; byAnswer: Record<string, number> };
  violations: ViolationSummary[];
  /** Ids of every check that ran, so passing checks show as passing JUnit test cases. */
  checks: string[];
  /** What each check id catches (the check catalog's words), so reports can say it; absent in older summaries. */
  checkDescriptions?: Record<string, string>;
  /** Why a check could not judge (a setting not known, a field the server does not send), where it said. */
  checkNotes?: Record<string, string>;
  /** Check ids the run did not run, each with why (`--skip-check`, `checks.skip`); absent when none. */
  skipped?: Record<string, string>;
  /** The deviations the run accepted and what each matched; absent when it had none. */
  known?: KnownSummary;
  thresholds: ThresholdResult[];
  series: SeriesSummary;
  /** Per check id: how many observations it judged; 0 is "not exercised", never "passed". */
  coverage: Record<string, number>;
  /** passed, failed, inconclusive, unreachable or interrupted, with the reasons. */
  verdict: Verdict;
  /** What the preflight found before the load (key, endpoint, routes), when it ran. */
  preflight?: { check: string; ok: boolean; detail: string }[];
  /** Live metrics outputs, when the run had any. */
  exports?: ExportSummary[];
  /** Present when the run streamed LLM answers (`/openai/*` streams, jobs read through `/stream`). */
  tokens?: TokensSummary;
  /** Present when your own worker processes served the run (`--worker`): the handler's side. */
  workers?: WorkersSummary;
  /** Present when the run asked `/health` or submitted jobs: worker samples and the scaling figures made of them. */
  scaling?: ScalingSummary;
  /**
   * The caps on what the run keeps per job or per sample (RunLimits) that dropped detail, each
   * with its limit and how many it dropped, in CAP_IDS order; absent when none was reached.
   */
  caps?: CapCount[];
}

/** The run's real worker processes as the emulator saw them (workers.json has every field). */
export interface WorkersSummary {
  processes: number;
  rows: WorkerRow[];
}

export interface GeneratorLimitSummary {
  /** ms from the run's start. */
  at: number;
  durationMs: number;
  /** Highest event-loop utilisation of a second in the stretch, 0..1. */
  busy: number;
  loopDelayP99Ms: number;
  latenessP99Ms: number;
  /** Mean CPU the process got over the stretch, in cores, when measured (below 0.5: starved). */
  cpuShare?: number;
}
