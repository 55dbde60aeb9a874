import { defineFault } from './fault.js';

export const scaleStuck = defineFault(
  'scale-stuck',
  'the autoscaler stops at half of workersMax: jobs wait in the queue while workers stay below it',
  ['scaling.stuck'],
  (base) => ({ workerCap: (max) => Math.ceil(base.workerCap(max) / 2) }),
);
