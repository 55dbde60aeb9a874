import { defineFault } from './fault.js';

export const healthNegative = defineFault(
  'health-negative',
  'GET /health reports jobs.inQueue as -1 when the queue is empty',
  (base) => ({ healthInQueue: (n) => (n === 0 ? -1 : base.healthInQueue(n)) }),
);
