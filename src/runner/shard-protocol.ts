import type { Scenario } from '../scenario/scenario.js';
import type { RunOutcome, ShardSpec, Target } from './run-options.js';

/** What the main thread hands a shard worker (structured-cloned: data only). */
export interface ShardInit {
  scenario: Scenario;
  target: Target;
  runId: string;
  shard: ShardSpec;
  gracefulStopMs?: number;
  drainMs?: number;
  /** The main thread's CPU readings (CpuCell), when the owner gave a way to read them. */
  cpuCell?: SharedArrayBuffer;
}

/**
 * A shard says `ready` once set up; the main thread answers every shard with one `start` (a
 * common time 0, so no shard's first arrivals are late by another's start-up), then records flow.
 */
export type FromShard =
  | { type: 'ready' }
  | { type: 'records'; records: unknown[] }
  | { type: 'done'; outcome: RunOutcome }
  | { type: 'warning'; message: string }
  | { type: 'error'; message: string };

export type ToShard = { type: 'interrupt' } | { type: 'start'; epochZeroMs: number };
