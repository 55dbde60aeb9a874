import { defineFault } from './fault.js';

export const timeoutEarly = defineFault(
  'timeout-early',
  'jobs end TIMED_OUT at half their executionTimeout (executionTime reported accordingly)',
  ['lifecycle.timeout-early'],
  (base) => ({
    executionLimit: (job) => {
      const limit = base.executionLimit(job);
      return limit === undefined ? undefined : Math.floor(limit / 2);
    },
  }),
);
