import { Checker, type CheckResult } from '../../src/check/checker.js';
import type { Check } from '../../src/check/check.js';
import { defaultChecks } from '../../src/check/checks/registry.js';
import { isFinalStatus, type FinalState } from '../../src/core/job-status.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { JobFold, type JobFoldOptions } from '../../src/fold/job-fold.js';

/** What the checks' job book holds of jobs at the end: the facts it takes from the job fold. */
export interface BookFacts {
  submitted: number;
  byState: Record<FinalState, number>;
}

/**
 * Runs every check over `records` and reads the job book at the end (a check of the test's own,
 * last, sees the book before it is emptied). The records come with the events of a fold with
 * `fold`'s options, as a run session hands them.
 */
export function checkWithFacts(
  records: readonly JobstormRecord[],
  fold: JobFoldOptions = {},
): { result: CheckResult; facts: BookFacts } {
  const [run, ...rest] = records;
  if (run?.type !== 'run') throw new Error('records start with the run record');
  const facts: BookFacts = { submitted: 0, byState: { COMPLETED: 0, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 } };
  const reader: Check = {
    name: 'book-reader',
    ids: [],
    finish(ctx) {
      for (const job of ctx.jobs.known()) {
        if (job.submittedAt !== undefined) facts.submitted++;
        if (job.finalAt !== undefined && isFinalStatus(job.last)) facts.byState[job.last as FinalState]++;
      }
    },
  };
  const checker = new Checker(run, { checks: [...defaultChecks(), reader] });
  const own = new JobFold(fold);
  own.add(run);
  for (const r of rest) checker.add(r, own.add(r));
  return { result: checker.finish(), facts };
}
