import { defineFault } from './fault.js';

export const noWebhook = defineFault(
  'no-webhook',
  'webhooks are never delivered',
  ['webhook.missing'],
  () => ({
    sendsWebhook: () => false,
  }),
);
