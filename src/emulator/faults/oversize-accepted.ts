import { defineFault } from './fault.js';

export const oversizeAccepted = defineFault(
  'oversize-accepted',
  'bodies over the /run (10 MB) and /runsync (20 MB) limits are accepted (up to 4x the limit)',
  ['limits.payload'],
  (base) => ({ bodyLimit: (band) => base.bodyLimit(band) * 4 }),
);
