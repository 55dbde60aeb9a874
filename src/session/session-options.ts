import type { JobEvents } from '../fold/job-events.js';
import type { LiveThresholdStatus } from './live-thresholds.js';
import type { EpochClock } from '../core/clock.js';
import type { CpuReading } from '../core/cpu-starvation.js';
import type { KnownDeviations, SkippedCheck } from '../core/known-deviation.js';
import type { RunLimits } from '../core/run-limits.js';
import type { JobstormRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import type { OpenApiRules } from '../check/openapi-rules.js';
import type { Tolerances } from '../check/tolerances.js';
import type { JobCounts, LiveFigures } from '../metrics/run-metrics.js';
import type { ExportSummary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import type { RunEnd } from '../report/verdict.js';
import type { GeneratorProbe } from '../runner/generator-watch.js';
import type { ProgressSnapshot, ShardSpec, Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import type { StartTogether } from './barrier/meeting.js';

/** How the contract checks judge: what `jobstorm run --tolerance` and `--openapi` give. */
export interface CheckSettings {
  tolerances?: Partial<Tolerances>;
  /** Rules from a user's OpenAPI document, for `management.openapi`. */
  openapi?: OpenApiRules;
  /**
   * Checks not to run beside those the run record names. A run's own come through its run record
   * (the scenario's `checks.skip`), so that `jobstorm check` of its records skips them too.
   */
  skip?: readonly SkippedCheck[];
  /** Deviations to accept instead of those the run record names (`jobstorm check --known`). */
  known?: KnownDeviations;
}

/** Live outputs (LiveExports), already started by their owner: the session only feeds them. */
export interface ExportSink {
  /** `jobs`: the session's fold of this record (see JobFold), so the exports do not fold it again. */
  add(record: JobstormRecord, jobs: JobEvents): void;
  addViolation(violation: Violation): void;
  /** Each threshold judged live, as judged so far: called each time a second is judged. */
  thresholds?(statuses: readonly LiveThresholdStatus[]): void;
  /** The last bounded flush; what each backend sent and dropped. */
  stop(): Promise<ExportSummary[]>;
}

export interface SessionExports {
  sink: ExportSink;
  /**
   * Stop them when the session finishes and put their figures in the summary (a run); false
   * when they outlive the session (capacity steps share one set across the search).
   */
  stopAtFinish: boolean;
}

/** What a progress line shows beside the runner's counters. */
export interface LiveView {
  /** Violations found so far. */
  violations: number;
  /** Jobs by the summary's own definition (RunMetrics.jobCounts). */
  jobs: JobCounts;
  /** p99 latency so far and requests failed (5xx or unanswered), as the summary counts them. */
  latency: LiveFigures;
  /** Thresholds failing so far, as written (those the per-second series judges live). */
  failingThresholds: string[];
}

/** Where the session hands what it does not keep itself. */
export interface SessionSinks {
  /** Every record, after the checks, metrics and exports took it (a records file, a capacity step). */
  record?: (record: JobstormRecord) => void;
  /** About once a second while the load runs (not with `workers` > 1). */
  progress?: (snapshot: ProgressSnapshot, view: LiveView) => void;
  /**
   * jobstorm itself became the bottleneck (the generator watch), or a threshold with abortOnFail
   * stopped the run: what to tell the user, at once.
   */
  warning?: (message: string) => void;
}

export interface RunSessionOptions {
  scenario: Scenario;
  target: Target;
  runId: string;
  /**
   * The run's time and timers, from the owner (the CLI and `runJobstorm` pick the system clock,
   * tests a manual one); the runner runs on it and the forced-exit summary's duration reads it.
   */
  clock: EpochClock;
  /**
   * Judged over the run's metrics at the end; they set the verdict. Those the per-second series can
   * judge are also judged live, every second; one with abortOnFail stops the run when it fails.
   */
  thresholds?: readonly Threshold[];
  /** The contract checks (default: every check with default tolerances); false runs none. */
  checks?: false | CheckSettings;
  /**
   * What the run keeps per job and per sample at most (default RunLimits'): its memory stays flat
   * however long it runs; what a cap dropped is counted in the summary's `caps`.
   */
  limits?: Partial<RunLimits>;
  exports?: SessionExports;
  sinks?: SessionSinks;
  /** Aborting it stops arrivals and drains, as a first Ctrl-C does; every record is still taken. */
  interrupt?: AbortSignal;
  /** This process runs shard i/n of the scenario (`--shard`). */
  shard?: ShardSpec;
  /** Worker threads, each a shard whose records this session takes (default 1: this thread). */
  workers?: number;
  gracefulStopMs?: number;
  drainMs?: number;
  /**
   * A few requests before the load (key, endpoint, routes). Run once per run: not by threads
   * nor by shards after the first, which trust it.
   */
  preflight?: boolean;
  /** The process's CPU time, so the generator watch tells starved from saturated. */
  cpu?: () => CpuReading;
  /** What the generator watch reads each second instead of the real event loop (RunOptions.generatorProbe). */
  generatorProbe?: () => GeneratorProbe;
  /**
   * Start the schedule together with the run's other shards and stop together with them
   * (`--barrier`, `--start-at`): met after the preflight and the warm-up, just before time 0.
   */
  together?: StartTogether;
}

export interface FinishOptions {
  /** How the run ended, when its owner knows better than the runner (a failed output). */
  end?: RunEnd;
  /** The duration the summary's rates are over (default the run's; a capacity step's window). */
  durationMs?: number;
}
