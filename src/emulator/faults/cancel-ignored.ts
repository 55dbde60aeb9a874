import { defineFault } from './fault.js';

export const cancelIgnored = defineFault(
  'cancel-ignored',
  'POST /cancel answers CANCELLED but the job keeps going and later ends COMPLETED (or as its handler decides)',
  // After the proof's id, what follows from a CANCELLED that the job then outlived (found by the
  // fuzzer): a retry of it accepted, a purge that removes it from the queue, and its webhook
  // naming the state it really ended in.
  ['transition.cancel-overridden', 'lifecycle.retry-not-allowed', 'lifecycle.purge-count', 'webhook.status-mismatch'],
  () => ({ honoursCancel: () => false }),
);
