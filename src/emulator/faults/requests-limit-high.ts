import { defineFault } from './fault.js';
import { limitRows } from './limit-rows.js';

export const requestsLimitHigh = defineFault(
  'requests-limit-high',
  'GET /requests is limited at twice the table: 20 requests per 10 s and 4 concurrent',
  ['ratelimit.not-enforced'],
  (base) => limitRows(base, ['requests'], (mode) => ({ ...mode, scale: 2 })),
);
