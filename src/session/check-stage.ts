import { Checker, type CheckResult } from '../check/checker.js';
import type { JobstormRecord } from '../core/record.js';
import { TurnBatch } from '../core/turn-batch.js';
import type { Violation } from '../core/violation.js';
import type { RunLimits } from '../core/run-limits.js';
import type { JobEvents } from '../fold/job-events.js';
import { JobEventLog } from '../fold/job-event-log.js';
import type { CheckSettings } from './session-options.js';

/**
 * The contract checks of one run: the checker starts at the run record (it needs the run's time
 * base) and takes each turn's records together, after the turn's requests went out (TurnBatch),
 * each with what the session's job fold made of it (kept until then in a JobEventLog, so the
 * checker does not fold the records again). Each violation is counted here, once, and handed on.
 */
export class CheckStage {
  private checker: Checker | undefined;
  private found = 0;
  /** The fold's events of the batched records, in the same order. */
  private readonly events = new JobEventLog();
  private readonly batch = new TurnBatch<JobstormRecord>((records) => {
    try {
      for (let i = 0; i < records.length; i++) {
        const r = records[i];
        if (r !== undefined) this.checker?.add(r, this.events.at(i));
      }
    } finally {
      // Even when a check threw: the next turn's records start the log again.
      this.events.clear();
    }
  });

  constructor(
    private readonly settings: CheckSettings,
    private readonly onViolation: (v: Violation) => void,
    /** What the checks keep at most (default RunLimits'). */
    private readonly limits: Partial<RunLimits> = {},
  ) {}

  /** Violations found so far. */
  get violations(): number {
    return this.found;
  }

  /** True once the run record started the checker. */
  get started(): boolean {
    return this.checker !== undefined;
  }

  /** Takes a record and the job fold's events for it (copied: the fold may reuse its object). */
  add(r: JobstormRecord, jobs: JobEvents): void {
    if (r.type === 'run')
      this.checker ??= new Checker(r, {
        ...(this.settings.tolerances ? { tolerances: this.settings.tolerances } : {}),
        ...(this.settings.openapi ? { openapi: this.settings.openapi } : {}),
        ...(this.settings.skip ? { skip: this.settings.skip } : {}),
        ...(this.settings.known ? { known: this.settings.known } : {}),
        limits: this.limits,
        onViolation: (v) => {
          this.found++;
          this.onViolation(v);
        },
      });
    if (!this.checker) return;
    this.events.push(jobs);
    this.batch.push(r);
  }

  /** Hands over the records still batched, then the checks' end-of-run judgement. */
  finish(): CheckResult | undefined {
    this.batch.flush();
    return this.checker?.finish();
  }
}
