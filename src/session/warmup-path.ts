import { RECORD_VERSION, type JobstormRecord, type RunRecord } from '../core/record.js';
import { JobFold } from '../fold/job-fold.js';
import { RunMetrics } from '../metrics/run-metrics.js';
import { CheckStage } from './check-stage.js';
import type { CheckSettings } from './session-options.js';

/**
 * A throwaway copy of the session's record path (fold, metrics, checks) that the runner's warm-up
 * records go through before time 0, so the JIT has compiled it before the first arrival (issue
 * 35): nothing here reaches the run's metrics, checks, exports or records.
 */
export class WarmupPath {
  private readonly fold = new JobFold({});
  private readonly metrics = new RunMetrics();
  private readonly checks: CheckStage | undefined;

  constructor(checks: false | CheckSettings | undefined, runId: string) {
    this.checks = checks === false ? undefined : new CheckStage(checks ?? {}, () => undefined);
    const run: RunRecord = {
      v: RECORD_VERSION,
      type: 'run',
      runId,
      scenario: 'warmup',
      target: 'http://127.0.0.1/v2/warmup',
      startedAtMs: 0,
      ownsEndpoint: false,
    };
    this.add(run);
  }

  readonly add = (r: JobstormRecord): void => {
    const jobs = this.fold.add(r);
    this.checks?.add(r, jobs);
    this.metrics.add(r, jobs);
  };
}
