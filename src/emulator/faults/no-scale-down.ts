import { defineFault } from './fault.js';

export const noScaleDown = defineFault(
  'no-scale-down',
  'idle workers never stop: workers above workersMin stay past idleTimeout with nothing to do',
  ['scaling.no-scale-down'],
  () => ({ scalesDown: () => false }),
);
