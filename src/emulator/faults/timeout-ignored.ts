import { defineFault } from './fault.js';

export const timeoutIgnored = defineFault(
  'timeout-ignored',
  'policy.executionTimeout is not enforced: a job runs past it and never ends TIMED_OUT',
  ['lifecycle.timeout-ignored'],
  () => ({ executionLimit: () => undefined }),
);
