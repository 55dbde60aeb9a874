import {
  ACTION_OBSERVATION,
  STATUS_OBSERVATION,
  stepObserved,
  type Observation,
  type SequenceFault,
  type SequenceState,
} from '../../../contracts/queue/states.js';
import { isJobStatus } from '../../core/job-status.js';
import type { ExchangeRecord } from '../../core/record.js';
import type { TimelineEntry } from '../../core/violation.js';
import type { Check, CheckContext, Judgement } from '../check.js';
import type { JobState } from '../job-book.js';
import { firstTime, hasFired } from '../fired-rules.js';
import { entriesOf } from '../job-timeline.js';

type TransitionId =
  | 'transition.backwards'
  | 'transition.left-final'
  | 'transition.cancel-overridden'
  | 'transition.cancelled-unprompted'
  | 'lifecycle.retry-not-allowed';

const SEQUENCE: readonly TransitionId[] = ['transition.backwards', 'transition.left-final'];
const AFTER_CANCEL_ANSWERED: readonly TransitionId[] = [...SEQUENCE, 'transition.cancel-overridden'];
const UNPROMPTED: readonly TransitionId[] = [...SEQUENCE, 'transition.cancelled-unprompted'];
const UNPROMPTED_ID = 'transition.cancelled-unprompted' satisfies TransitionId;
const RETRY: readonly TransitionId[] = ['lifecycle.retry-not-allowed'];
const NONE: readonly TransitionId[] = [];

/** The rules an observation by `op` could show broken, given what the job showed before it. */
function rulesAt(job: JobState, op: string): readonly TransitionId[] {
  if (op === 'retry') return RETRY;
  if (op === 'cancel') return NONE;
  if (job.cancelAnsweredCancelled) return AFTER_CANCEL_ANSWERED;
  return job.cancelAsked ? SEQUENCE : UNPROMPTED;
}

/** The id a fault of the transition table is reported under, for this job. */
function idOf(fault: SequenceFault, job: JobState): TransitionId {
  if (fault === 'retry-not-allowed') return 'lifecycle.retry-not-allowed';
  if (fault === 'left-final' && job.last === 'CANCELLED' && job.cancelAnsweredCancelled)
    return 'transition.cancel-overridden';
  return `transition.${fault}`;
}

/** Reused for every record (the check runs synchronously, one record at a time). */
const scratch: SequenceState = { cancelAsked: false };

/**
 * The status a 200 answer's body shows (`add` takes only those). A stream's list of chunks shows
 * none: a JSON array has no `status`.
 */
function statusIn(r: ExchangeRecord): unknown {
  return (r.body as { status?: unknown } | undefined)?.status;
}

function report(
  v: Judgement,
  r: ExchangeRecord,
  job: JobState,
  message: string,
  status: unknown,
  ctx: CheckContext,
): void {
  ctx.emit(v, {
    record: r,
    jobId: job.id,
    message,
    timeline: [...entriesOf(job.timeline), entryOf(r, status)],
  });
}

/**
 * A CANCELLED that no cancel or purge of ours answered before it: reported only once no record can
 * still show it prompted. A purge, or our cancel of the job, sent before this answer came back may
 * answer after it (a runsync waiting in the queue is answered CANCELLED by the purge it raced: found
 * by the lifecycle fuzzer on the faithful emulator), so the judgement waits SETTLE_MS of record time.
 */
interface PendingUnprompted {
  record: ExchangeRecord;
  jobId: string;
  message: string;
  timeline: TimelineEntry[];
}

/** Requests in flight when a CANCELLED came back have answered by then (as purge-check's settle). */
const SETTLE_MS = 30_000;

type Pending = PendingUnprompted[];

/** What this record adds to the job's observed sequence, against the transition table. */
function judgeStep(
  r: ExchangeRecord,
  job: JobState,
  action: Observation | undefined,
  status: unknown,
  ctx: CheckContext,
  pending: Pending,
): void {
  const rules = rulesAt(job, r.op);
  // A copy to step through: the book steps the job's own state after the checks.
  const state = scratch;
  state.shown = job.shown;
  state.cancelAsked = job.cancelAsked;
  const found =
    (action && stepObserved(state, action)) ??
    (isJobStatus(status) ? stepObserved(state, STATUS_OBSERVATION[status]) : undefined);
  const broken = found && idOf(found.fault, job);
  if (found && broken === UNPROMPTED_ID) {
    // Judged when it settles (PendingUnprompted); the other rules judge this observation now.
    if (!hasFired(job, UNPROMPTED_ID)) {
      const timeline = [...entriesOf(job.timeline), entryOf(r, status)];
      pending.push({ record: r, jobId: job.id, message: found.message, timeline });
    }
    for (const rule of rules) if (rule !== UNPROMPTED_ID) ctx.judge(rule, false);
    return;
  }
  const fired = broken !== undefined && firstTime(job, broken) ? broken : undefined;
  for (const rule of rules) {
    const v = ctx.judge(rule, rule === fired);
    if (v && found) report(v, r, job, found.message, status, ctx);
  }
  // A cancel's or a retry's answer can show a status that breaks the table too: that answer is
  // the observation judged.
  if (fired === undefined || rules.includes(fired)) return;
  const v = ctx.judge(fired, true);
  if (v && found) report(v, r, job, found.message, status, ctx);
}

function entryOf(r: ExchangeRecord, status: unknown): TimelineEntry {
  return { at: r.endAt, op: r.op, ...(isJobStatus(status) ? { status } : {}) };
}

/**
 * A purge, or our cancel of the job, sent before a pending CANCELLED came back explains it: that
 * observation broke no rule, and the job's sequence goes on from CANCELLED, asked for (the book
 * stopped following it when it took the CANCELLED as unprompted).
 */
function explain(r: ExchangeRecord, jobId: string | undefined, pending: Pending, ctx: CheckContext): void {
  for (let i = pending.length - 1; i >= 0; i--) {
    const p = pending[i];
    if (!p || p.record.endAt <= r.sentAt || (jobId !== undefined && p.jobId !== jobId)) continue;
    pending.splice(i, 1);
    ctx.judge(UNPROMPTED_ID, false);
    const job = ctx.jobs.get(p.jobId);
    if (!job) continue;
    job.sequenceBroken = false;
    job.shown = 'CANCELLED';
    job.cancelAsked = true;
  }
}

/** Reports the pending CANCELLEDs that answered before `upTo` (all of them without one). */
function settle(pending: Pending, ctx: CheckContext, upTo = Infinity): void {
  while (pending.length > 0) {
    const p = pending[0];
    if (!p || p.record.endAt + SETTLE_MS >= upTo) return;
    pending.shift();
    const job = ctx.jobs.get(p.jobId);
    if (job) firstTime(job, UNPROMPTED_ID);
    const v = ctx.judge(UNPROMPTED_ID, true);
    if (v) ctx.emit(v, { record: p.record, jobId: p.jobId, message: p.message, timeline: p.timeline });
  }
}

/**
 * `transition.*` and `lifecycle.retry-not-allowed`: each job's observed statuses, in the order
 * observed, against the transition table; a poll may skip states but never go back. The book steps
 * each job's sequence state as observations arrive (after the checks saw the record), so this
 * judges only what the record adds; an unprompted CANCELLED waits until it settles.
 */
export function transitionCheck(): Check {
  const pending: Pending = [];
  return {
    name: 'transition',
    ids: [...UNPROMPTED, 'transition.cancel-overridden', ...RETRY],
    add(r, ctx) {
      if (r.type !== 'exchange') return;
      if (pending.length > 0) settle(pending, ctx, r.endAt);
      if (r.status !== 200) return;
      if (pending.length > 0 && (r.op === 'purge-queue' || r.op === 'cancel'))
        explain(r, r.op === 'cancel' ? ctx.job.jobId : undefined, pending, ctx);
      const id = ctx.job.jobId;
      if (id === undefined) return;
      const job = ctx.jobs.get(id);
      // A fault earlier in the sequence was reported when it was new; the job's later steps follow from it.
      if (!job || job.sequenceBroken) return;
      const status = statusIn(r);
      const action = r.op === 'retry' || r.op === 'cancel' ? ACTION_OBSERVATION[r.op] : undefined;
      if (action === undefined && !isJobStatus(status)) return;
      judgeStep(r, job, action, status, ctx, pending);
    },
    finish(ctx) {
      settle(pending, ctx);
    },
  };
}
