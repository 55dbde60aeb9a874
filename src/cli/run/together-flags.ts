import { isIP } from 'node:net';
import type { ConfigIssue } from '../../core/config-error.js';
import type { ShardSpec } from '../../runner/run-options.js';
import { durationIssue, formatDuration, parseDuration } from '../../scenario/duration.js';
import { parseRfc3339 } from '../../session/barrier/rfc3339.js';
import type { RunArgs } from '../commands/run-args.js';

/** How the shards of a run start together: a shared folder, or one instant given to each. */
export type TogetherFlag =
  { kind: 'barrier'; folder: string; timeoutMs: number } | { kind: 'start-at'; atMs: number };

/** Long enough for pods to be scheduled and images pulled; short enough that a lost shard is noticed. */
export const DEFAULT_BARRIER_TIMEOUT_MS = 5 * 60_000;

function barrierTimeout(args: RunArgs, issues: ConfigIssue[]): number {
  const text = args['barrier-timeout'];
  if (text === undefined) return DEFAULT_BARRIER_TIMEOUT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || !(ms > 0)) {
    issues.push({
      where: '--barrier-timeout',
      message: durationIssue(text) ?? `expected a duration longer than 0, like 5m or 90s, got "${text}"`,
    });
    return DEFAULT_BARRIER_TIMEOUT_MS;
  }
  return ms;
}

function startAt(text: string, nowMs: number, issues: ConfigIssue[]): number | undefined {
  const atMs = parseRfc3339(text);
  if (atMs === undefined) {
    issues.push({
      where: '--start-at',
      message: `expected an RFC 3339 instant with its zone, like 2026-05-01T02:00:30Z, got "${text}"`,
    });
    return undefined;
  }
  if (atMs <= nowMs) {
    issues.push({
      where: '--start-at',
      message: `${text} is ${formatDuration(nowMs - atMs)} in the past (now ${new Date(nowMs).toISOString()}): give an instant after every shard's start-up`,
    });
    return undefined;
  }
  return atMs;
}

/** --barrier, --barrier-timeout and --start-at; each problem joins `issues`. */
export function parseTogetherFlags(
  args: RunArgs,
  shard: ShardSpec | undefined,
  nowMs: number,
  issues: ConfigIssue[],
): TogetherFlag | undefined {
  const folder = args.barrier;
  const at = args['start-at'];
  if (args['barrier-timeout'] !== undefined && folder === undefined)
    issues.push({ where: '--barrier-timeout', message: 'applies with --barrier only' });
  if ((args.workers ?? 1) > 1 && (folder !== undefined || at !== undefined))
    issues.push({
      where: folder !== undefined ? '--barrier' : '--start-at',
      message: '--workers starts its own threads together; run shards with --shard instead',
    });
  if (folder !== undefined && at !== undefined) {
    issues.push({ where: '--barrier', message: 'give --barrier or --start-at, not both' });
    return undefined;
  }
  if (folder !== undefined) {
    const timeoutMs = barrierTimeout(args, issues);
    if (folder.trim() === '') issues.push({ where: '--barrier', message: 'expected a folder, got ""' });
    else if (!shard)
      issues.push({ where: '--barrier', message: 'is where the shards of a run meet: give --shard i/n too' });
    return { kind: 'barrier', folder, timeoutMs };
  }
  if (at === undefined) return undefined;
  const atMs = startAt(at, nowMs, issues);
  return atMs === undefined ? undefined : { kind: 'start-at', atMs };
}

/** --local-address: an IP address of this machine (connections leave from it). */
export function parseLocalAddress(args: RunArgs, issues: ConfigIssue[]): string | undefined {
  const address = args['local-address'];
  if (address === undefined) return undefined;
  if (isIP(address) === 0)
    issues.push({
      where: '--local-address',
      message: `expected an IP address like 127.0.0.2, got "${address}"`,
    });
  return address;
}
