import type { CancelStep } from '../../scenario/scenario.js';
import { confirmJob, routeMissing, type StepRunner } from './iteration-state.js';
import { pollUntil } from './poll.js';

/** How a `cancel: { when }` watches for its state: a brisk poll, bounded like any poll. */
const WATCH = { intervalMs: 100, backoff: 1, maxIntervalMs: 100, timeoutMs: 60_000 };

/** POST /cancel at once, `afterMs` after submission, or once a poll sees `when`. */
export const cancel: StepRunner<CancelStep> = async (step, it) => {
  if (it.jobId === undefined) return false;
  const { client, clock } = it.ctx;
  if (step.when !== undefined) {
    if (!(await pollUntil({ ...WATCH, until: step.when }, it, 'poll'))) return false;
  } else if (step.afterMs !== undefined) {
    if (!(await it.sleepUntil((it.submittedAt ?? clock.now()) + step.afterMs))) return false;
  }
  if (routeMissing(it, 'cancel')) return true;
  const r = await client.cancel(it.jobId, it.call('cancel'));
  it.intendedAt = clock.now();
  it.see(r);
  await confirmJob(it, 'cancel', r.status);
  return true;
};
