import { defineFault } from './fault.js';

const FAST_RETRY_SPACING_MS = 1000;

export const webhookFastRetry = defineFault(
  'webhook-fast-retry',
  'webhook retries come 1 s apart instead of 10 s',
  ['webhook.retry-spacing'],
  () => ({ webhookRetrySpacing: () => FAST_RETRY_SPACING_MS }),
);
