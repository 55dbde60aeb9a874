import { Checker, type CheckResult } from '../check/checker.js';
import type { JobstormRecord } from '../core/record.js';
import { TurnBatch } from '../core/turn-batch.js';
import type { Violation } from '../core/violation.js';
import type { CheckSettings } from './session-options.js';

/**
 * The contract checks of one run: the checker starts at the run record (it needs the run's time
 * base) and takes each turn's records together, after the turn's requests went out (TurnBatch).
 * Each violation is counted here, once, and handed on.
 */
export class CheckStage {
  private checker: Checker | undefined;
  private found = 0;
  private readonly batch = new TurnBatch<JobstormRecord>((records) => {
    for (const r of records) this.checker?.add(r);
  });

  constructor(
    private readonly settings: CheckSettings,
    private readonly onViolation: (v: Violation) => void,
  ) {}

  /** Violations found so far. */
  get violations(): number {
    return this.found;
  }

  /** True once the run record started the checker. */
  get started(): boolean {
    return this.checker !== undefined;
  }

  add(r: JobstormRecord): void {
    if (r.type === 'run')
      this.checker ??= new Checker(r, {
        ...(this.settings.tolerances ? { tolerances: this.settings.tolerances } : {}),
        ...(this.settings.openapi ? { openapi: this.settings.openapi } : {}),
        onViolation: (v) => {
          this.found++;
          this.onViolation(v);
        },
      });
    if (this.checker) this.batch.push(r);
  }

  /** Hands over the records still batched, then the checks' end-of-run judgement. */
  finish(): CheckResult | undefined {
    this.batch.flush();
    return this.checker?.finish();
  }
}
