import { defineFault } from './fault.js';
import { STATUS_READS } from './status-reads.js';

export const backwardsStatus = defineFault(
  'backwards-status',
  'after a job COMPLETED, every second /status read shows it IN_PROGRESS again',
  ['transition.left-final'],
  (base) => ({
    shownStatus: (job) =>
      job.status === 'COMPLETED' && STATUS_READS.next(job) % 2 === 0 ? 'IN_PROGRESS' : base.shownStatus(job),
  }),
);
