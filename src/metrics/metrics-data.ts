import type { FinalState } from '../core/job-status.js';
import type { Severity, Violation } from '../core/violation.js';
import type { Outcome } from './outcome.js';
import type { ScalingData } from './scaling-data.js';
import type { TokenData } from './llm-stats.js';

/**
 * The serialized form of `RunMetrics`: plain JSON, histograms as compressed base64 (`''` when
 * empty), so shard results merge exactly after a round trip through a file. summary.json embeds
 * these fields; docs/summary-format.md describes them.
 */
export const METRICS_DATA_VERSION = 1;

// Where the reports have always found them; the job fold (src/fold/) closes jobs with these.
export { FINAL_STATES, type FinalState } from '../core/job-status.js';

export interface OutcomeData {
  count: number;
  /** Latency from the intended start (free of coordinated omission). */
  intended: string;
  /** Latency from the actual send. */
  sent: string;
}

export interface OperationData {
  requests: number;
  /** By status code, or `error` when no response arrived. */
  byStatus: Record<string, number>;
  /** Transport errors by kind. */
  errors: Record<string, number>;
  outcomes: Partial<Record<Outcome, OutcomeData>>;
  reqBytes: number;
  resBytes: number;
  /** 4xx answers to probes and the preflight, which ask to be refused; absent when none. */
  probe4xx?: number;
}

export interface JobsData {
  /** Accepted `/run` and `/runsync` submissions. */
  submitted: number;
  /** Accepted `/retry` calls; each re-opens the job, whose next final state counts again. */
  retried: number;
  /** 404 on a job we submitted before we saw it final. */
  lost: number;
  /** Submitted but not yet seen final when the data was taken. */
  unfinished: number;
  /** Dropped from tracking because too many jobs were in flight at once (see `maxTrackedJobs`). */
  untracked: number;
  byState: Record<FinalState, number>;
  delayTime: string;
  executionTime: string;
  /** Submit send → first stream response with at least one chunk. */
  firstChunk: string;
  /** Submit send → first final status observed, by that state. */
  e2e: Record<FinalState, string>;
}

export interface OperationSeriesData {
  requests: number[];
  /** Latency-from-intended per second as `SparseHistogram.encode()`; `''` when none. */
  latency: string[];
  /**
   * Requests per second by outcome, for windowed rates and counts: only the outcomes that
   * occurred (absent in summaries written before windowed thresholds).
   */
  outcomes?: Partial<Record<Outcome, number[]>>;
  /** Latency of the requests that got no answer, per second, when any did: taken off for answers-only percentiles. */
  unanswered?: string[];
}

/** Columnar per-second series; index i is the wall-clock second `startSec + i` (epoch seconds). */
export interface SeriesData {
  startSec: number;
  length: number;
  requests: number[];
  r429: number[];
  errors: number[];
  /** Request time spent in flight in that second, in µs: mean concurrency = busyUs / 1e6. */
  busyUs: number[];
  submitted: number[];
  dropped: number[];
  /**
   * Arrivals per second by when their first request was due (the schedule's or the trace's time),
   * and by when it went out: a replay kept to its trace when the two are the same. Absent in
   * summaries of records that did not mark arrivals.
   */
  due?: number[];
  sent?: number[];
  finals: Record<FinalState, number[]>;
  /** Highest `workers.running` and `jobs.inQueue` a `/health` sample showed in that second. */
  workers: (number | null)[];
  queue: (number | null)[];
  ops: Record<string, OperationSeriesData>;
}

/** A kept example: the violation as its shard saw it, plus that shard's wall-clock anchor. */
export interface ViolationExampleData {
  anchorMs: number;
  violation: Violation;
}

/** How many findings of a check id cited an exchange of this operation answered with this status. */
export interface ExchangeCount {
  op?: string;
  status?: number;
  count: number;
}

export interface ViolationData {
  id: string;
  severity: Severity;
  count: number;
  /** Of `count`, the findings an entry of the run's known deviations accepted; absent when none. */
  known?: number;
  /**
   * Findings each known entry matched, by the entry's index: accepted ones, or, for an entry that had
   * expired, those it would have accepted. Absent when none matched.
   */
  entries?: Record<string, number>;
  /**
   * New findings (no entry in force accepted them) by the operation and status of the exchange each
   * cites: what `jobstorm known` writes entries for. Absent when none is new.
   */
  exchanges?: ExchangeCount[];
  examples: ViolationExampleData[];
}

/** A stall of the target (StallRecord), its start on the wall clock (epoch ms). */
export interface StallData {
  atMs: number;
  durationMs: number;
  inFlight: number;
  /** Requests that ended without an answer during it, by error kind. */
  failed?: Record<string, number>;
}

/** A stretch where jobstorm itself was the bottleneck (GeneratorRecord), its start on the wall clock. */
export interface GeneratorLimitData {
  atMs: number;
  durationMs: number;
  busy: number;
  loopDelayP99Ms: number;
  latenessP99Ms: number;
  cpuShare?: number;
}

/** The unmeasured start of a run (the scenario's `warmup`): what was sent in it, not measured. */
export interface WarmupData {
  /** Its length from time 0; the longest of merged shards'. */
  ms: number;
  /** Requests intended in it: in the per-second series, in no other metric. */
  requests: number;
  /** Arrivals dropped in it (maxInFlight). */
  dropped: number;
}

export interface MetricsData {
  version: typeof METRICS_DATA_VERSION;
  /** Earliest run anchor and latest record, wall clock (epoch ms); null before any record. */
  wallStartMs: number | null;
  wallEndMs: number | null;
  operations: Record<string, OperationData>;
  jobs: JobsData;
  errors: Record<string, number>;
  dropped: { total: number; byFlow: Record<string, number> };
  webhooks: { received: number; byAnswer: Record<string, number> };
  violations: ViolationData[];
  series: SeriesData;
  /** Streamed /openai/* answers; absent when the run streamed none. */
  tokens?: TokenData;
  /** Present when the target stalled: each stall, in time order. */
  stalls?: StallData[];
  /** Present when jobstorm was the bottleneck: each stretch, in time order. */
  generatorLimited?: GeneratorLimitData[];
  /** Present when the run had a warm-up. */
  warmup?: WarmupData;
  /** Present when the run asked `/health` or submitted jobs: what the scaling figures come from. */
  scaling?: ScalingData;
}
