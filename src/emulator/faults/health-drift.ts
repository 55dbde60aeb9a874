import { defineFault } from './fault.js';

export const healthDrift = defineFault(
  'health-drift',
  'GET /health counts every completed job twice in jobs.completed',
  ['health.jobs-mismatch'],
  (base) => ({ healthCompleted: (n) => base.healthCompleted(n) * 2 }),
);
