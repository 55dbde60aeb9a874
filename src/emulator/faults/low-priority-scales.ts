import { defineFault } from './fault.js';

export const lowPriorityScales = defineFault(
  'low-priority-scales',
  'lowPriority jobs call for workers like any other: the autoscaler starts workers for a queue of only lowPriority jobs',
  ['scaling.low-priority'],
  () => ({ scalingDemand: (_normal, all) => all }),
);
