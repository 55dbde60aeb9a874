import { defineFault } from './fault.js';

export const retentionIgnored = defineFault(
  'retention-ignored',
  'finished jobs are kept past their result retention (30 min /run, 1 min /runsync); only ttl deletes them',
  ['lifecycle.retention-ignored'],
  () => ({ retentionEnd: () => Infinity }),
);
