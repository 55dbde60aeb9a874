import { defineFault } from './fault.js';
import { STATUS_READS } from './status-reads.js';

export const backwardsQueue = defineFault(
  'backwards-queue',
  'a job that is IN_PROGRESS is shown IN_QUEUE on every second /status read while it runs',
  // After the proof's id, what follows from a job shown back in the queue (found by the fuzzer): a
  // purge can remove it, and its run, timed from then, looks too short for its TIMED_OUT.
  ['transition.backwards', 'lifecycle.purge-count', 'lifecycle.timeout-early'],
  (base) => ({
    shownStatus: (job) =>
      job.status === 'IN_PROGRESS' && STATUS_READS.next(job) % 2 === 0 ? 'IN_QUEUE' : base.shownStatus(job),
  }),
);
