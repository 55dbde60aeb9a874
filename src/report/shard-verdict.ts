import type { RunInfo } from './summary.js';

/**
 * What the verdict says about the run's shards: the one that ended early and stopped the others,
 * and shards that left no summary (a merge without them is partial).
 */
export function shardReasons(run: Pick<RunInfo, 'stoppedBy' | 'missingShards'>): string[] {
  const out: string[] = [];
  const by = run.stoppedBy;
  if (by)
    out.push(`shard ${by.shard} stopped the run${by.at === undefined ? '' : ` at ${by.at}`}: ${by.reason}`);
  return out;
}

/** The headline of a merge that lacks shards, when it does. */
export function missingShardsReason(run: Pick<RunInfo, 'missingShards'>): string | undefined {
  const missing = run.missingShards ?? [];
  if (missing.length === 0) return undefined;
  return `shard${missing.length === 1 ? '' : 's'} ${missing.join(', ')} left no summary (failed, or never ran): results are partial`;
}
