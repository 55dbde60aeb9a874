import { defineFault } from './fault.js';

export const noWebhookRetry = defineFault(
  'no-webhook-retry',
  'a webhook that does not answer 200 is not retried (one attempt instead of three)',
  ['webhook.retry-count'],
  () => ({ webhookAttempts: () => 1 }),
);
