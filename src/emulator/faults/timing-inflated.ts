import { defineFault } from './fault.js';

const INFLATED_DELAY_MS = 3_600_000;

export const timingInflated = defineFault(
  'timing-inflated',
  'delayTime is reported 3600000 ms (1 h) larger than it was, in every job body and the stream envelope',
  ['lifecycle.timing-inconsistent'],
  (base) => ({ delayTime: (job) => base.delayTime(job) + INFLATED_DELAY_MS }),
);
