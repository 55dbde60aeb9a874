/**
 * Names of every operation jobstorm can send or observe. The contract (contracts/) describes each
 * one; records, metrics and checks key on these names.
 */
export const QUEUE_OPERATIONS = [
  'run',
  'runsync',
  'status',
  'status-sync',
  'stream',
  'cancel',
  'retry',
  'purge-queue',
  'health',
  // OpenAI-compatible routes under /openai/v1/* and the recent-requests list (SPEC "Limits").
  'openai',
  'requests',
] as const;

export const MANAGEMENT_OPERATIONS = ['StartPod', 'CreateEndpoint'] as const;

export type QueueOperation = (typeof QUEUE_OPERATIONS)[number];
export type ManagementOperation = (typeof MANAGEMENT_OPERATIONS)[number];
export type Operation = QueueOperation | ManagementOperation;

export const OPERATIONS: readonly Operation[] = [...QUEUE_OPERATIONS, ...MANAGEMENT_OPERATIONS];

export function isOperation(name: string): name is Operation {
  return (OPERATIONS as readonly string[]).includes(name);
}

export function isQueueOperation(name: string): name is QueueOperation {
  return (QUEUE_OPERATIONS as readonly string[]).includes(name);
}
