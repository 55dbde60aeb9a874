import type { EpochClock } from '../core/clock.js';
import type { CpuReading } from '../core/cpu-starvation.js';
import type { JobstormRecord } from '../core/record.js';
import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import type { Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import type { GeneratorProbe } from '../runner/generator-watch.js';
import type { ProgressSnapshot } from '../runner/run-options.js';
import type { ExportSink, LiveView } from '../session/session-options.js';
import type { CapacityStep } from './capacity-report.js';
import type { SearchMode, SearchStage } from './search-mode.js';

/** Which offered rates to try: geometric (`factor`) or arithmetic (`increment`) steps up to `max`. */
export interface RatePlan {
  /** First offered rate, arrivals per second. */
  start: number;
  /** Multiply the rate by this after each passing step (> 1). Default 1.5 when neither is given. */
  factor?: number;
  /** Or add this many arrivals per second after each passing step. */
  increment?: number;
  /** Highest rate tried. */
  max: number;
}

export interface StepPlan extends RatePlan {
  /** Measured part of each step, after the warm-up. */
  stepDurationMs: number;
  /** Start of each step left out of the measurement (queue filling, workers scaling). */
  warmupMs: number;
}

export type { SearchMode } from './search-mode.js';

/** A step's progress, about once a second while it runs (its session's progress sink). */
export interface StepProgress {
  index: number;
  rate: number;
  stage: SearchStage;
  snapshot: ProgressSnapshot;
  view: LiveView;
}

/** A step as it starts. */
export interface StepStart {
  index: number;
  rate: number;
  stage: SearchStage;
}

/** What a step's session can say while it runs. */
export interface LiveSummarySource {
  liveSummary(): Summary | undefined;
}

export interface CapacityOptions {
  scenario: Scenario;
  target: Target;
  /** Each step passes only when every one of these holds over its measured window. */
  slo: readonly Threshold[];
  steps: StepPlan;
  mode: SearchMode;
  /** The search's time and timers, from its owner (the CLI picks the system clock, tests a manual one). */
  clock: EpochClock;
  /** What each step's generator watch reads instead of the real event loop (RunOptions.generatorProbe). */
  generatorProbe?: () => GeneratorProbe;
  /** Called after each step, for progress lines. */
  onStep?(step: CapacityStep): void;
  /** Called about once a second while a step runs, for a live progress line. */
  onProgress?(progress: StepProgress): void;
  /** A step's session started: what it measured so far can be asked of it (the live dashboard). */
  onStepStart?(step: StepStart, session: LiveSummarySource): void;
  /**
   * Every record of every step as it comes, warm-ups included (live exports): the steps are runs
   * of their own, each with its run record and times relative to its start.
   */
  onRecord?: (record: JobstormRecord) => void;
  /**
   * Live exports, started by the caller and stopped by it after the search: every step's records,
   * warm-ups included, so a dashboard follows the search as it climbs.
   */
  exports?: ExportSink;
  /** Aborting it stops the current step (it is reported) and the search. */
  interrupt?: AbortSignal;
  runId?: string;
  /** Binary refinement stops once (firstFailing − lastPassing) / lastPassing ≤ this. Default 0.05. */
  resolution?: number;
  /** Most binary refinement steps. Default 6. */
  maxRefinements?: number;
  /**
   * Queue growth over the measured window, as a share of the offered rate, above which the step is
   * not a steady state. Default 0.03: a queue growing by 3 jobs/s at 100 jobs/s never settles.
   */
  queueGrowthTolerance?: number;
  /**
   * A step stops early, as "unbounded queue", once the queue has grown at every one of the last
   * four /health samples and holds more than this many seconds of arrivals. Default 5.
   */
  unboundedQueueSeconds?: number;
  /** Longest wait for the queue to drain back to where it started, between steps. Default 30 s. */
  settleTimeoutMs?: number;
  /** After a step's arrivals stop, how long its jobs may take to finish. Default min(30 s, max(5 s, step duration)). */
  gracefulStopMs?: number;
  /** The process's CPU time (µs), so a step starved of CPU is told from a saturated one (RunOptions). */
  cpu?: () => CpuReading;
}

export const DEFAULT_FACTOR = 1.5;
export const DEFAULT_RESOLUTION = 0.05;
export const DEFAULT_MAX_REFINEMENTS = 6;
export const DEFAULT_QUEUE_GROWTH_TOLERANCE = 0.03;
export const DEFAULT_UNBOUNDED_QUEUE_SECONDS = 5;
export const DEFAULT_SETTLE_TIMEOUT_MS = 30_000;
