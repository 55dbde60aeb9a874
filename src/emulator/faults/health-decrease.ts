import { defineFault, ReadCounter } from './fault.js';

/** /health reads per endpoint with jobs.completed above 0. */
const reads = new ReadCounter();

export const healthDecrease = defineFault(
  'health-decrease',
  'GET /health reports jobs.completed 1 lower on every second read once it is above 0',
  ['health.counter-decreased'],
  (base) => ({
    healthCompletedRead: (n, endpoint) => {
      const completed = base.healthCompletedRead(n, endpoint);
      return completed > 0 && reads.next(endpoint) % 2 === 0 ? completed - 1 : completed;
    },
  }),
);
