import { defineFault } from './fault.js';
import { limitRows } from './limit-rows.js';

export const requestsLimitLow = defineFault(
  'requests-limit-low',
  'GET /requests is refused (429) at half the table: 5 requests per 10 s and 1 concurrent',
  ['ratelimit.early'],
  (base) => limitRows(base, ['requests'], (mode) => ({ ...mode, scale: 0.5 })),
);
