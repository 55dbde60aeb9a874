import { defineFault } from './fault.js';
import { STATUS_READS } from './status-reads.js';

export const backwardsQueue = defineFault(
  'backwards-queue',
  'a job that is IN_PROGRESS is shown IN_QUEUE on every second /status read while it runs',
  ['transition.backwards'],
  (base) => ({
    shownStatus: (job) =>
      job.status === 'IN_PROGRESS' && STATUS_READS.next(job) % 2 === 0 ? 'IN_QUEUE' : base.shownStatus(job),
  }),
);
