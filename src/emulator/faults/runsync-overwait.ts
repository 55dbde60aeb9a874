import type { SyncWait } from '../policy/policy.js';
import { defineFault } from './fault.js';

/** The job's end is ignored; the answer comes at twice the wait. */
const OVERWAIT: SyncWait = { atEnd: false, factor: 2 };

export const runsyncOverwait = defineFault(
  'runsync-overwait',
  '/runsync and /status-sync answer only after twice their wait, even when the job finished earlier',
  ['lifecycle.runsync-wait-exceeded'],
  () => ({ syncWait: () => OVERWAIT }),
);
