import type { RunEnd } from './verdict-status.js';
import type { RunInfo, Summary } from './summary.js';

/**
 * What a merge says about how its shards started and stopped together: the spread of their
 * starts, the shard that stopped the others, and shards that left no summary.
 */

/**
 * The ends that say how the run went: a shard stopped by another one ended as at a Ctrl-C, but
 * the run ended as the shard that stopped it did (its threshold, its Ctrl-C).
 */
export function causeEnds(summaries: readonly Summary[]): RunEnd[] {
  const own = summaries.filter((s) => !stoppedByPeer(s.run));
  return own.length > 0 ? own.map((s) => s.run.end) : ['interrupted'];
}

function stoppedByPeer(run: RunInfo): boolean {
  return run.stoppedBy !== undefined && run.shard !== null && run.stoppedBy.shard !== run.shard;
}

/**
 * Shards `i/n` of the run with no summary among the inputs: from the labels the summaries carry
 * (all of one `n`), else the inputs that held none (`missing`, named as given).
 */
export function missingShards(summaries: readonly Summary[], missing: readonly string[]): string[] {
  const labels = summaries.flatMap((s) => (s.run.shard !== null ? [s.run.shard] : s.run.shards));
  const counts = new Set(labels.map((l) => l.slice(l.indexOf('/') + 1)));
  const [count] = [...counts];
  if (counts.size !== 1 || count === undefined) return [...missing];
  const n = Number(count);
  const absent = Array.from({ length: n }, (_, i) => `${String(i + 1)}/${count}`).filter(
    (l) => !labels.includes(l),
  );
  return absent.length >= missing.length ? absent : [...absent, ...missing];
}

function earliest<T extends { at?: string }>(xs: readonly T[]): T | undefined {
  return [...xs].sort((a, b) => Date.parse(a.at ?? '') - Date.parse(b.at ?? ''))[0];
}

export function togetherOf(
  summaries: readonly Summary[],
  missing: readonly string[],
): Pick<RunInfo, 'startAt' | 'stoppedBy' | 'startSpreadMs' | 'missingShards'> {
  const starts = summaries.map((s) => s.run.startMs);
  const startAt = earliest(summaries.flatMap((s) => (s.run.startAt ? [s.run.startAt] : [])));
  const stoppedBy = earliest(summaries.flatMap((s) => (s.run.stoppedBy ? [s.run.stoppedBy] : [])));
  return {
    ...(startAt ? { startAt: { ...startAt } } : {}),
    ...(summaries.length > 1 ? { startSpreadMs: Math.max(...starts) - Math.min(...starts) } : {}),
    ...(stoppedBy ? { stoppedBy: { ...stoppedBy } } : {}),
    ...(missing.length > 0 ? { missingShards: [...missing] } : {}),
  };
}
