import { defineFault } from './fault.js';

export const malformedBodies = defineFault(
  'malformed-bodies',
  'a field of the wrong type in bodies wrong-types leaves alone: /run, /stream, /cancel, /retry status as a number, purge removed and health jobs.completed as strings, management message and workersMax mistyped',
  [
    'schema.run',
    'schema.stream',
    'schema.cancel',
    'schema.retry',
    'schema.purge-queue',
    'schema.health',
    'schema.StartPod',
    'schema.CreateEndpoint',
    'schema.requests',
  ],
  (base) => ({
    statusField: () => 0,
    countField: (n) => String(base.countField(n)),
    // The bare array's chunks lose their `output` (it is sent as `data`).
    arrayStream: (chunks) => chunks.map((chunk) => ({ data: chunk.output })),
    requestsList: (entries) => entries.map((r) => ({ ...r, createdAt: String(r.createdAt as number) })),
    messageField: (_message, status) => status,
    createdRecord: (record) => ({ ...record, workersMax: String(record.workersMax) }),
  }),
);
