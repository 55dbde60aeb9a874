import type { Scenario } from '../scenario/scenario.js';
import type { RunOutcome, ShardSpec, Target } from './run-options.js';

/** What the main thread hands a shard worker (structured-cloned: data only). */
export interface ShardInit {
  scenario: Scenario;
  target: Target;
  runId: string;
  shard: ShardSpec;
  epochZeroMs: number;
  gracefulStopMs?: number;
  drainMs?: number;
}

export type FromShard =
  | { type: 'records'; records: unknown[] }
  | { type: 'done'; outcome: RunOutcome }
  | { type: 'error'; message: string };

export type ToShard = { type: 'interrupt' };
