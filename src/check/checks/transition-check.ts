import {
  ACTION_OBSERVATION,
  STATUS_OBSERVATION,
  stepObserved,
  type SequenceState,
} from '../../../contracts/queue/states.js';
import { isJobStatus } from '../../core/job-status.js';
import type { JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';
import { jobIdOf } from '../job-id.js';
import type { JobState } from '../job-book.js';
import { firstTime } from '../fired-rules.js';
import { entriesOf } from '../job-timeline.js';

/** Counts what one observation could have shown broken (coverage). */
function judgedTransition(job: JobState, op: string, ctx: CheckContext): void {
  if (op === 'retry') ctx.judged('lifecycle.retry-not-allowed');
  if (op === 'retry' || op === 'cancel') return;
  ctx.judged('transition.backwards');
  ctx.judged('transition.left-final');
  if (job.cancelAnsweredCancelled) ctx.judged('transition.cancel-overridden');
  else if (!job.cancelAsked) ctx.judged('transition.cancelled-unprompted');
}

/** Reused for every record (the check runs synchronously, one record at a time). */
const scratch: SequenceState = { cancelAsked: false };

function statusIn(r: JobstormRecord): unknown {
  if (r.type !== 'exchange' || r.status !== 200) return undefined;
  if (r.op === 'stream' && Array.isArray(r.body)) return undefined;
  return (r.body as { status?: unknown } | undefined)?.status;
}

/**
 * `transition.*` and `lifecycle.retry-not-allowed`: each job's observed statuses, in the order
 * observed, against the transition table; a poll may skip states but never go back. The book steps
 * each job's sequence state as observations arrive (after the checks saw the record), so this
 * judges only what the record adds.
 */
export const transitionCheck: Check = {
  name: 'transition',
  add(r, ctx) {
    if (r.type !== 'exchange' || r.status !== 200) return;
    const id = jobIdOf(r);
    if (id === undefined) return;
    const job = ctx.jobs.get(id);
    // A fault earlier in the sequence was reported when it was new; the job's later steps follow from it.
    if (!job || job.sequenceBroken) return;
    const status = statusIn(r);
    const action = r.op === 'retry' || r.op === 'cancel' ? ACTION_OBSERVATION[r.op] : undefined;
    if (action === undefined && !isJobStatus(status)) return;
    judgedTransition(job, r.op, ctx);
    // A copy to step through: the book steps the job's own state after the checks.
    const state = scratch;
    state.shown = job.shown;
    state.cancelAsked = job.cancelAsked;
    const found =
      (action && stepObserved(state, action)) ??
      (isJobStatus(status) ? stepObserved(state, STATUS_OBSERVATION[status]) : undefined);
    if (!found) return;
    let checkId: string = `transition.${found.fault}`;
    if (found.fault === 'retry-not-allowed') checkId = 'lifecycle.retry-not-allowed';
    if (found.fault === 'left-final' && job.last === 'CANCELLED' && job.cancelAnsweredCancelled)
      checkId = 'transition.cancel-overridden';
    if (firstTime(job, checkId)) {
      ctx.emit({
        id: checkId,
        record: r,
        jobId: id,
        message: found.message,
        timeline: [
          ...entriesOf(job.timeline),
          { at: r.endAt, op: r.op, ...(isJobStatus(status) ? { status } : {}) },
        ],
      });
    }
  },
};
