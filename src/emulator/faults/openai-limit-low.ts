import { defineFault } from './fault.js';
import { limitRows } from './limit-rows.js';

export const openaiLimitLow = defineFault(
  'openai-limit-low',
  'POST /openai/* is refused (429) at half the table: 1000 requests per 10 s and 200 concurrent',
  ['ratelimit.early'],
  (base) => limitRows(base, ['openai'], (mode) => ({ ...mode, scale: 0.5 })),
);
