import type { ExchangeRecord, JobstormRecord, RunRecord, WebhookRecord } from '../core/record.js';
import type { RouteWatch } from '../core/route-watch.js';
import type { CapCount } from '../core/run-limits.js';
import type { Severity, TimelineEntry } from '../core/violation.js';
import type { CheckId, CheckInfo } from './catalog.js';
import type { JobEvents } from '../fold/job-events.js';
import type { JobBook, JobState } from './job-book.js';
import type { Tolerances } from './tolerances.js';

/** Only the checker makes a verdict: a type of its own that no object literal satisfies. */
declare const JUDGED: unique symbol;

/**
 * The catalog row of the rule an observation was judged to break. `judge` gives one only when the
 * observation it counted broke the rule, and `emit` takes nothing else: a finding cannot be
 * reported without the observation behind it having been counted, nor under another id.
 */
export type Judgement<Id extends CheckId = CheckId> = CheckInfo & {
  readonly id: Id;
  readonly [JUDGED]: true;
};

/**
 * The rules decided across records: the observation was counted when it came (a /status 404 of a
 * job, an answered request), and only a later record or the job's retirement shows it broke the rule.
 */
export const LATE_CHECK_IDS = [
  'lifecycle.lost',
  'route.missing',
  'request.method',
] as const satisfies readonly CheckId[];
export type LateCheckId = (typeof LATE_CHECK_IDS)[number];

/** What a violation needs beyond its verdict; the checker fills in severity, time and repro. */
export interface Finding {
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
  /**
   * What the job fold made of the record `add` is looking at (its job, the state it showed, what
   * it did to the job), so a check need not read them from the body again. Valid in `add` only:
   * the next record replaces it.
   */
  readonly job: JobEvents;
  /** Which routes the target serves, from the records so far (shared with the runner's logic). */
  readonly routes: RouteWatch;
  /**
   * Judges one observation that could have broken rule `id`: counts it (coverage: a check that
   * judged nothing was not exercised, and no report may call it passed) and, when `violated`,
   * gives the verdict `emit` needs. `violated` carries every condition of the finding, so what is
   * counted and what is reported cannot drift apart. Allocates nothing.
   */
  judge<Id extends CheckId>(id: Id, violated: boolean): Judgement<Id> | undefined;
  /**
   * The verdict of a rule decided across records (LATE_CHECK_IDS), whose observation `judge`
   * counted when it came: it counts nothing.
   */
  settle<Id extends LateCheckId>(id: Id): Judgement<Id>;
  /**
   * Says why rule `id` could not be judged on these records (a setting not known, a field the
   * server does not send): reports show it beside a rule that judged nothing. The first reason given
   * for an id is kept.
   */
  unjudged(id: CheckId, reason: string): void;
  /** Reports the finding that shows the verdict's rule broken. */
  emit(verdict: Judgement, finding: Finding): void;
}

/**
 * A family of rules over records (DESIGN rule 6: small interfaces, registered by name). `ids` are
 * the catalog ids it judges (a test holds their union to the catalog). `add` sees every record in
 * arrival order; `jobDone` sees a job each time the book retires it (again when a late poll brought
 * it back: a check that must judge a job once marks it with `firstTime`, which the job keeps
 * through its retirement, not with a WeakSet: a job brought back is a new object); `finish` runs once at
 * the end. All three must depend only on the records seen, so that live and offline checking of
 * the same stream agree.
 */
export interface Check {
  readonly name: string;
  readonly ids: readonly CheckId[];
  add?(record: JobstormRecord, ctx: CheckContext): void;
  jobDone?(job: JobState, ctx: CheckContext): void;
  finish?(ctx: CheckContext): void;
  /** The caps on what it keeps that dropped detail (a check whose memory follows the run's length must have one). */
  caps?(): readonly CapCount[];
}
