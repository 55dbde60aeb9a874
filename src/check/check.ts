import type { ExchangeRecord, JobstormRecord, RunRecord, WebhookRecord } from '../core/record.js';
import type { RouteWatch } from '../core/route-watch.js';
import type { Severity, TimelineEntry } from '../core/violation.js';
import type { JobBook, JobState } from './job-book.js';
import type { Tolerances } from './tolerances.js';

/** What a violation needs beyond its id; the checker fills in severity, time and repro. */
export interface Finding {
  id: string;
  message: string;
  /** The exchange (or webhook delivery) that shows the rule broken: one that really happened. */
  record: ExchangeRecord | WebhookRecord;
  /** Lower than the catalog's when the run cannot be sure (e.g. a rate limit shared with others). */
  severity?: Severity;
  jobId?: string;
  timeline?: TimelineEntry[];
  at?: number;
}

export interface CheckContext {
  readonly run: RunRecord;
  readonly tolerances: Tolerances;
  readonly jobs: JobBook;
  /** Which routes the target serves, from the records so far (shared with the runner's logic). */
  readonly routes: RouteWatch;
  emit(finding: Finding): void;
  /**
   * Counts one observation that could have broken rule `id` (coverage): a check that judged
   * nothing was not exercised, and no report may call it passed.
   */
  judged(id: string): void;
}

/**
 * A family of rules over records (DESIGN rule 6: small interfaces, registered by name). `add` sees
 * every record in arrival order; `jobDone` sees a job each time the book folds it (again when a late
 * poll brought it back: a check that must judge a job once marks it with `firstTime`, which the
 * job keeps through its fold, not with a WeakSet: a job brought back is a new object);
 * `finish` runs once at the end. All three must depend only on the records seen, so that live and
 * offline checking of the same stream agree.
 */
export interface Check {
  readonly name: string;
  add?(record: JobstormRecord, ctx: CheckContext): void;
  jobDone?(job: JobState, ctx: CheckContext): void;
  finish?(ctx: CheckContext): void;
}
