import { defineFault } from './fault.js';

export const cancelIgnored = defineFault(
  'cancel-ignored',
  'POST /cancel answers CANCELLED but the job keeps going and later ends COMPLETED (or as its handler decides)',
  ['transition.cancel-overridden'],
  () => ({ honoursCancel: () => false }),
);
