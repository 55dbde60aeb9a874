import { defineFault } from './fault.js';
import { limitRows } from './limit-rows.js';

export const no429 = defineFault(
  'no-429',
  'never answers 429: neither the per-window rate limit nor the concurrency cap is enforced',
  ['ratelimit.not-enforced'],
  (base) => limitRows(base, ['queue', 'openai', 'requests'], (mode) => ({ ...mode, off: true })),
);
