import { defineFault } from './fault.js';

export const scaleOverMax = defineFault(
  'scale-over-max',
  'the autoscaler starts up to twice workersMax workers, and /health counts them all',
  ['scaling.above-max'],
  (base) => ({ workerCap: (max) => base.workerCap(max) * 2 }),
);
