import type { TokenSettings } from '../core/token-definition.js';
import { mergeCaps, type CapCount, type RunLimits } from '../core/run-limits.js';
import type { JobstormRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import type { JobEvents } from '../fold/job-events.js';
import { JobFold, type JobFoldOptions } from '../fold/job-fold.js';
import { RunMetrics } from '../metrics/run-metrics.js';
import type { WorkerPrice } from '../metrics/scaling-data.js';
import { CheckStage } from './check-stage.js';
import type { CheckSettings } from './session-options.js';

/** A consumer of job progress: takes each record with what the one fold made of it. */
export interface FoldedSink {
  add(record: JobstormRecord, jobs: JobEvents): void;
}

/**
 * The path each record takes: folded once into job progress (DESIGN rule 9), then handed with
 * the fold's events to every consumer, in order. Nothing after it folds a record of its own.
 */
export class RecordPath {
  private readonly fold: JobFold;

  constructor(
    fold: JobFoldOptions,
    private readonly sinks: readonly FoldedSink[],
  ) {
    this.fold = new JobFold(fold);
  }

  readonly add = (r: JobstormRecord): void => {
    const jobs = this.fold.add(r);
    for (const sink of this.sinks) sink.add(r, jobs);
  };

  /** The fold's cap on jobs followed at once, when it gave some up. */
  caps(): CapCount[] {
    return this.fold.caps();
  }
}

export interface RunPathOptions {
  /** The scenario's warm-up: the fold and the metrics take the same one. */
  warmupMs?: number;
  price?: WorkerPrice;
  /** The scenario's `llm` settings: token timing definitions and goodput objectives. */
  llm?: TokenSettings;
  /** The contract checks, or none (`false`). */
  checks?: false | CheckSettings;
  onViolation?: (v: Violation) => void;
  /** What the fold, the checks and the metrics keep at most (default RunLimits'; tests make them small). */
  limits?: Partial<RunLimits>;
}

/** A run's record path: the checks, then the metrics, then `more` (live exports). */
export interface RunPath {
  readonly add: (r: JobstormRecord) => void;
  readonly checks: CheckStage | undefined;
  readonly metrics: RunMetrics;
  /** The caps of the fold and the metrics that dropped detail so far (the checks' come with their result). */
  readonly caps: () => CapCount[];
}

/** The one record path of a run, built the same way for the run session and for its warm-up. */
export function runPath(o: RunPathOptions, more: readonly FoldedSink[] = []): RunPath {
  const { warmupMs, price, llm, limits = {} } = o;
  const checks =
    o.checks === false
      ? undefined
      : new CheckStage(o.checks ?? {}, o.onViolation ?? (() => undefined), limits);
  const metrics = new RunMetrics({ warmupMs, price, llm, limits });
  const path = new RecordPath(
    { warmupMs, ...(limits.jobsFollowed === undefined ? {} : { maxTracked: limits.jobsFollowed }) },
    [...(checks ? [checks] : []), metrics, ...more],
  );
  return { add: path.add, checks, metrics, caps: () => mergeCaps(path.caps(), metrics.caps()) };
}
