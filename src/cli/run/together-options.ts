/** `run`'s flags for shards that start and stop together (parsed by parseTogetherFlags): `.options(TOGETHER_OPTIONS)`. */
export const TOGETHER_OPTIONS = {
  barrier: {
    type: 'string',
    describe:
      'with --shard: a folder every shard of the run can write (one per run); the shards start their schedules together there, and one that ends early stops the others',
  },
  'barrier-timeout': {
    type: 'string',
    describe:
      'how long a shard waits at --barrier for the others before it gives up, sending nothing (exit 3; default 5m)',
  },
  'start-at': {
    type: 'string',
    describe:
      'start the schedule at this RFC 3339 instant, e.g. 2026-05-01T02:00:30Z (shards given the same one start together)',
  },
  'local-address': {
    type: 'string',
    describe: 'the local IP address requests leave from, e.g. 127.0.0.2',
  },
} as const;
