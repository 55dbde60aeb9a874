import { Checker, type CheckerOptions } from '../../src/check/checker.js';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { DEFAULT_MAX_TRACKED_JOBS, JobFold, type JobFoldOptions } from '../../src/fold/job-fold.js';
import { RunMetrics, type RunMetricsOptions } from '../../src/metrics/run-metrics.js';

/*
 * The record path of a run (src/session/record-path.ts) for tests that feed records one at a
 * time: each record is folded first, by one fold of the test's, and handed on with the fold's
 * events, as the session hands them. The checker and the metrics fold nothing themselves.
 */

/** A Checker whose records are folded on the way in. */
export class FoldedChecker extends Checker {
  private readonly fold: JobFold;

  constructor(run: RunRecord, options: CheckerOptions = {}, fold: JobFoldOptions = {}) {
    super(run, options);
    this.fold = new JobFold(fold);
    this.fold.add(run);
  }

  override add(record: JobstormRecord): void {
    super.add(record, this.fold.add(record));
  }
}

/** RunMetrics whose records are folded on the way in, by a fold with their warm-up. */
export class FoldedMetrics extends RunMetrics {
  private readonly fold: JobFold;

  /** `maxTrackedJobs`: the fold's cap on jobs followed at once (`untracked` past it). */
  constructor(options: RunMetricsOptions & { maxTrackedJobs?: number } = {}) {
    const { maxTrackedJobs, ...metrics } = options;
    super(metrics);
    this.fold = new JobFold({
      maxTracked: maxTrackedJobs ?? DEFAULT_MAX_TRACKED_JOBS,
      warmupMs: Math.max(0, metrics.warmupMs ?? 0),
    });
  }

  override add(record: JobstormRecord): void {
    super.add(record, this.fold.add(record));
  }
}
