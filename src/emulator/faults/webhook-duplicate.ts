import { defineFault } from './fault.js';

const DUPLICATE_AFTER_MS = 1000;

export const webhookDuplicate = defineFault(
  'webhook-duplicate',
  'each webhook is delivered a second time 1 s after the receiver answered 200',
  ['webhook.duplicate'],
  () => ({ webhookRepeatAfter: () => DUPLICATE_AFTER_MS }),
);
