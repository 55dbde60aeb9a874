import { defineFault } from './fault.js';

const MISCOUNT = 5;

export const purgeMiscount = defineFault(
  'purge-miscount',
  'POST /purge-queue reports removed 5 higher than the number of jobs it removed',
  ['lifecycle.purge-count'],
  (base) => ({ purgeCount: (removed) => base.purgeCount(removed) + MISCOUNT }),
);
