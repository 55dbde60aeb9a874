import { defineFault } from './fault.js';

export const wrongTypes = defineFault(
  'wrong-types',
  'job bodies (status, runsync, status-sync, webhook; not stream) carry delayTime and executionTime as strings',
  ['schema.runsync', 'schema.status', 'schema.status-sync', 'webhook.schema'],
  () => ({ timingField: (ms) => String(ms) }),
);
