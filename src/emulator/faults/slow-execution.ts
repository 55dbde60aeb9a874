import { defineFault } from './fault.js';

/** How much longer every job runs. */
const SLOW_EXECUTION_FACTOR = 1.3;

export const slowExecution = defineFault(
  'slow-execution',
  'every job runs 30% longer than its handler asks (sleep_ms or the profile), as a slower build would: breaks no rule, proves `jobstorm compare` sees it',
  [],
  (base) => ({ runDuration: (ms) => Math.round(base.runDuration(ms) * SLOW_EXECUTION_FACTOR) }),
);
