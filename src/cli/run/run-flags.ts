import type { ConfigIssue } from '../../core/config-error.js';
import type { ShardSpec } from '../../runner/run-options.js';
import { durationIssue, parseDuration } from '../../scenario/duration.js';
import { parseShard } from '../../schedule/shard.js';
import type { RunArgs } from '../commands/run-args.js';
import { parseLocalAddress, parseTogetherFlags, type TogetherFlag } from './together-flags.js';

/** `run`'s flags that shape the load, parsed; each problem joins `issues`. */
export interface RunFlags {
  shard?: ShardSpec;
  workers: number;
  gracefulStopMs?: number;
  durationMs?: number;
  warmupMs?: number;
  scale?: number;
  together?: TogetherFlag;
  localAddress?: string;
}

/** A duration flag: undefined when not given or not valid (then its problem is in `issues`). */
function durationFlag(
  issues: ConfigIssue[],
  where: string,
  text: string | undefined,
  zero: 'allowed' | 'refused',
  example: string,
): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || (zero === 'refused' && ms === 0)) {
    issues.push({
      where,
      message: durationIssue(text) ?? `expected a duration like ${example}, got "${text}"`,
    });
  }
  return ms;
}

function shardFlag(issues: ConfigIssue[], text: string | undefined): ShardSpec | undefined {
  if (text === undefined) return undefined;
  const shard = parseShard(text);
  if (!shard) issues.push({ where: '--shard', message: `expected i/n with 1 ≤ i ≤ n, got "${text}"` });
  return shard;
}

function workersFlag(issues: ConfigIssue[], args: RunArgs, shard: ShardSpec | undefined): number {
  const workers = args.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    issues.push({
      where: '--workers',
      message: `expected a whole number from 1 to 64, got ${String(args.workers)}`,
    });
  if (workers > 1 && shard)
    issues.push({
      where: '--workers',
      message: '--workers runs its own shards; do not combine it with --shard',
    });
  return workers;
}

/**
 * --shard, --workers, --graceful-stop, --duration, --warmup, --rate-scale, then --barrier,
 * --start-at and --local-address.
 */
export function parseRunFlags(args: RunArgs, issues: ConfigIssue[], nowMs = Date.now()): RunFlags {
  const shard = shardFlag(issues, args.shard);
  const workers = workersFlag(issues, args, shard);
  const gracefulStopMs = durationFlag(
    issues,
    '--graceful-stop',
    args['graceful-stop'],
    'allowed',
    '10s or 0s',
  );
  const durationMs = durationFlag(issues, '--duration', args.duration, 'refused', '30s, 2m or 500ms');
  const warmupMs = durationFlag(issues, '--warmup', args.warmup, 'allowed', '5s or 0s');
  const scale = args['rate-scale'];
  if (scale !== undefined && !(scale > 0 && Number.isFinite(scale)))
    issues.push({ where: '--rate-scale', message: `expected a positive number, got ${String(scale)}` });
  const together = parseTogetherFlags(args, shard, nowMs, issues);
  const localAddress = parseLocalAddress(args, issues);
  return {
    ...(together ? { together } : {}),
    localAddress,
    workers,
    ...(shard ? { shard } : {}),
    gracefulStopMs,
    durationMs,
    warmupMs,
    scale,
  };
}
