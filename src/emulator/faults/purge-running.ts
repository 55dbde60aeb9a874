import { defineFault } from './fault.js';

export const purgeRunning = defineFault(
  'purge-running',
  'POST /purge-queue also cancels jobs already IN_PROGRESS (and counts them in removed)',
  () => ({ purgesRunning: () => true }),
);
