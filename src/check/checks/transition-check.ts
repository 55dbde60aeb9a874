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
import type { Check, CheckContext, Judgement } from '../check.js';
import type { JobState } from '../job-book.js';
import { firstTime } from '../fired-rules.js';
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
    timeline: [
      ...entriesOf(job.timeline),
      { at: r.endAt, op: r.op, ...(isJobStatus(status) ? { status } : {}) },
    ],
  });
}

/** What this record adds to the job's observed sequence, against the transition table. */
function judgeStep(
  r: ExchangeRecord,
  job: JobState,
  action: Observation | undefined,
  status: unknown,
  ctx: CheckContext,
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

/**
 * `transition.*` and `lifecycle.retry-not-allowed`: each job's observed statuses, in the order
 * observed, against the transition table; a poll may skip states but never go back. The book steps
 * each job's sequence state as observations arrive (after the checks saw the record), so this
 * judges only what the record adds.
 */
export const transitionCheck: Check = {
  name: 'transition',
  ids: [...UNPROMPTED, 'transition.cancel-overridden', ...RETRY],
  add(r, ctx) {
    if (r.type !== 'exchange' || r.status !== 200) return;
    const id = ctx.job.jobId;
    if (id === undefined) return;
    const job = ctx.jobs.get(id);
    // A fault earlier in the sequence was reported when it was new; the job's later steps follow from it.
    if (!job || job.sequenceBroken) return;
    const status = statusIn(r);
    const action = r.op === 'retry' || r.op === 'cancel' ? ACTION_OBSERVATION[r.op] : undefined;
    if (action === undefined && !isJobStatus(status)) return;
    judgeStep(r, job, action, status, ctx);
  },
};
