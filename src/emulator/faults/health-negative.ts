import { defineFault } from './fault.js';

export const healthNegative = defineFault(
  'health-negative',
  'GET /health reports jobs.inQueue as -1 when the queue is empty',
  [
    'health.negative',
    // The contract types every /health counter as a non-negative integer: the -1 also fails
    // the body's schema.
    'schema.health',
  ],
  (base) => ({ healthInQueue: (n) => (n === 0 ? -1 : base.healthInQueue(n)) }),
);
