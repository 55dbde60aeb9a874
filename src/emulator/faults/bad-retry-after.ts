import { defineFault } from './fault.js';

export const badRetryAfter = defineFault(
  'bad-retry-after',
  '429 answers carry no Retry-After header',
  ['ratelimit.retry-after'],
  () => ({ retryAfterHeader: () => undefined }),
);
