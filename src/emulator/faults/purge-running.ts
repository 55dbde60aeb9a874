import { defineFault } from './fault.js';

export const purgeRunning = defineFault(
  'purge-running',
  'POST /purge-queue also cancels jobs already IN_PROGRESS (and counts them in removed)',
  [
    'lifecycle.purge-running',
    // A running job it cancelled is counted in removed, which then exceeds the jobs that could
    // have been waiting: the count is honest about what this purge did.
    'lifecycle.purge-count',
  ],
  () => ({ purgesRunning: () => true }),
);
