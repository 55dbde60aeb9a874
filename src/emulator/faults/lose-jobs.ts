import { defineFault } from './fault.js';

/** How long a lost job survives its final state. */
const LOST_AFTER_MS = 5000;

export const loseJobs = defineFault(
  'lose-jobs',
  'a job is forgotten (404) 5 s after it reaches a final state, long before its ttl and retention expire',
  ['lifecycle.lost'],
  () => ({ retentionEnd: (job) => job.finishedAt + LOST_AFTER_MS }),
);
