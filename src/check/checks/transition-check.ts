import { judgeObservedSequence, type Observation } from '../../../contracts/queue/states.js';
import { isJobStatus } from '../../core/job-status.js';
import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';
import { jobIdOf } from '../job-id.js';
import type { JobState } from '../job-book.js';

const FIRED = new WeakMap<JobState, Set<string>>();

/** Fires each id at most once per job: one broken job is one finding, however often it is polled. */
export function firstTime(job: JobState, id: string): boolean {
  let fired = FIRED.get(job);
  if (!fired) {
    fired = new Set();
    FIRED.set(job, fired);
  }
  if (fired.has(id)) return false;
  fired.add(id);
  return true;
}

function statusIn(r: JobstormRecord): unknown {
  if (r.type !== 'exchange' || r.status !== 200) return undefined;
  if (r.op === 'stream' && Array.isArray(r.body)) return undefined;
  return (r.body as { status?: unknown } | undefined)?.status;
}

/**
 * `transition.*` and `lifecycle.retry-not-allowed`: each job's observed statuses, in the order
 * observed, against the transition table; a poll may skip states but never go back.
 */
export const transitionCheck: Check = {
  name: 'transition',
  add(r, ctx) {
    if (r.type !== 'exchange' || r.status !== 200) return;
    const id = jobIdOf(r);
    if (id === undefined) return;
    const job = ctx.jobs.get(id);
    if (!job) return;
    const next: Observation[] = [];
    if (r.op === 'retry') next.push({ kind: 'action', action: 'retry' });
    if (r.op === 'cancel') next.push({ kind: 'action', action: 'cancel' });
    const status = statusIn(r);
    if (isJobStatus(status)) next.push({ kind: 'status', status });
    if (next.length === 0) return;
    const verdict = judgeObservedSequence([...job.observations, ...next]);
    // A fault earlier in the sequence was reported when it was new; the job's later steps follow from it.
    if (verdict.ok || verdict.index < job.observations.length) return;
    let checkId: string = `transition.${verdict.fault}`;
    if (verdict.fault === 'retry-not-allowed') checkId = 'lifecycle.retry-not-allowed';
    if (verdict.fault === 'left-final' && job.last === 'CANCELLED' && job.cancelAnsweredCancelled) checkId = 'transition.cancel-overridden';
    if (firstTime(job, checkId)) {
      ctx.emit({ id: checkId, record: r, jobId: id, message: verdict.message, timeline: [...job.timeline, { at: r.endAt, op: r.op, ...(isJobStatus(status) ? { status } : {}) }] });
    }
  },
};
