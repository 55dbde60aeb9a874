import type { Job } from '../job.js';
import { defineFault, ReadCounter } from './fault.js';

/** Submissions counted per endpoint queue while the fault is on. */
const submissions = new ReadCounter();
/** Jobs to cancel when a worker would start them. */
const doomed = new WeakSet<Job>();

export const spuriousCancel = defineFault(
  'spurious-cancel',
  'the service cancels every second job (by submission order) on its own when a worker would start it',
  ['transition.cancelled-unprompted'],
  (base) => ({
    submitted: (job, queue) => {
      if (submissions.next(queue) % 2 === 0) doomed.add(job);
      base.submitted(job, queue);
    },
    cancelsAtStart: (job) => doomed.delete(job) || base.cancelsAtStart(job),
  }),
);
