import { isFinalStatus } from '../../core/job-status.js';
import { defineFault } from './fault.js';

export const retryAny = defineFault(
  'retry-any',
  'POST /retry is accepted for a job in any final state (COMPLETED, CANCELLED), not only FAILED or TIMED_OUT',
  ['lifecycle.retry-not-allowed'],
  (base) => ({ retryable: (status) => base.retryable(status) || isFinalStatus(status) }),
);
