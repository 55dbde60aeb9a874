import type { CheckId } from './catalog.js';
import type { JobState } from './job-state.js';

/** A rule judged once per job: a catalog id, or the webhook check's judgement of a job's deliveries. */
export type OncePerJob = CheckId | 'webhook.judged';

/**
 * Bits of `JobState.fired`, by rule id, given out on first use. The ids are a fixed handful (the
 * transition faults, the lifecycle, stream and webhook rules that judge a job once), so a bit each
 * fits one small integer: unlike a set of ids per job, it survives the job's retirement into the
 * afterlife's packed rows (job-afterlife.ts) with the rest of what we know of it.
 */
const BITS = new Map<OncePerJob, number>();
/** Bits 0-29: the field stays a small integer (a Smi), never a boxed double. */
const MAX_BITS = 30;

function bitOf(id: OncePerJob): number {
  let bit = BITS.get(id);
  if (bit === undefined) {
    if (BITS.size >= MAX_BITS)
      throw new Error(`firstTime: more than ${String(MAX_BITS)} once-per-job rule ids (${id})`);
    bit = 1 << BITS.size;
    BITS.set(id, bit);
  }
  return bit;
}

/**
 * True the first time rule `id` is met for this job, false after: one broken job is one finding
 * however often it is polled, retired and brought back by a late poll.
 */
export function firstTime(job: JobState, id: OncePerJob): boolean {
  const bit = bitOf(id);
  if ((job.fired & bit) !== 0) return false;
  job.fired |= bit;
  return true;
}

/** Whether rule `id` was met for this job already, without marking it. */
export function hasFired(job: JobState, id: OncePerJob): boolean {
  return (job.fired & bitOf(id)) !== 0;
}
