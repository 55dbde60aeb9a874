import { defineFault } from './fault.js';
import { limitRows } from './limit-rows.js';

export const early429 = defineFault(
  'early-429',
  'answers 429 once half of the effective rate limit (per window) is used, before the limit is reached',
  ['ratelimit.early'],
  (base) => limitRows(base, ['queue', 'openai', 'requests'], (mode) => ({ ...mode, early: true })),
);
