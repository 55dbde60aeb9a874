import type { ConfigIssue } from '../core/config-error.js';
import type { Summary } from './summary.js';

/**
 * What stands in the way of merging some summaries. `refused` can never be merged: the same run,
 * or the same shard of it, twice would count its requests and jobs twice. `forceable` is what a
 * merge of one run's shards never shows (different scenarios, targets, runs, or two shards of the
 * same slot); `--force` merges those deliberately and the merged summary keeps the reasons.
 */
export interface MergeProblems {
  refused: ConfigIssue[];
  forceable: ConfigIssue[];
}

/** Joins the parts of a merged summary's id, scenario and target; `runIds` splits ids back. */
export const MERGED_JOIN = ' + ';

/** The run ids a summary holds: its own, or each part's when it is itself a merge. */
function runIds(s: Summary): string[] {
  return s.run.id.split(MERGED_JOIN);
}

/** The shard labels a summary holds; empty for a whole (unsharded) run. */
function shardsOf(s: Summary): string[] {
  return s.run.shard !== null ? [s.run.shard] : s.run.shards;
}

function common(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((x) => b.includes(x));
}

function shardCount(label: string): string {
  return label.slice(label.indexOf('/') + 1);
}

function pairProblem(a: Summary, b: Summary, an: string, bn: string, out: MergeProblems): void {
  const sameRun = common(runIds(a), runIds(b));
  const sa = shardsOf(a);
  const sb = shardsOf(b);
  const sameShards = common(sa, sb);
  const whole = sa.length === 0 || sb.length === 0;
  if (sameRun.length > 0 && (whole || sameShards.length > 0)) {
    const what = whole
      ? `run ${sameRun.join(', ')}`
      : `run ${sameRun.join(', ')} shard ${sameShards.join(', ')}`;
    out.refused.push({
      where: 'merge',
      message: `${an} and ${bn} both hold ${what}: merging it twice would count its requests and jobs twice`,
    });
    return;
  }
  if (sameRun.length > 0) return;
  const ids = `${a.run.id} and ${b.run.id}`;
  if (whole) {
    out.forceable.push({
      where: 'merge',
      message: `${an} and ${bn} are different runs (${ids}), not shards of one run`,
    });
  } else if (sameShards.length > 0) {
    out.forceable.push({
      where: 'merge',
      message: `${an} and ${bn} both hold shard ${sameShards.join(', ')}, from different runs (${ids})`,
    });
  } else {
    const counts = [...new Set([...sa, ...sb].map(shardCount))];
    if (counts.length > 1) {
      out.forceable.push({
        where: 'merge',
        message: `${an} (shard ${sa.join(', ')}) and ${bn} (shard ${sb.join(', ')}) split a run into different numbers of shards`,
      });
    }
  }
}

/** Every problem with merging these summaries, each naming both inputs (by `names`). */
export function mergeProblems(summaries: readonly Summary[], names: readonly string[]): MergeProblems {
  const out: MergeProblems = { refused: [], forceable: [] };
  const name = (i: number): string => names[i] ?? `summary ${String(i + 1)}`;
  const first = summaries[0];
  summaries.forEach((s, i) => {
    if (!first || i === 0) return;
    if (s.run.scenario !== first.run.scenario) {
      out.forceable.push({
        where: 'merge',
        message: `${name(0)} ran scenario "${first.run.scenario}" but ${name(i)} ran "${s.run.scenario}"`,
      });
    }
    if (s.run.target !== first.run.target) {
      out.forceable.push({
        where: 'merge',
        message: `${name(0)} ran against ${first.run.target} but ${name(i)} against ${s.run.target}`,
      });
    }
  });
  for (let i = 0; i < summaries.length; i++) {
    for (let j = i + 1; j < summaries.length; j++) {
      const a = summaries[i];
      const b = summaries[j];
      if (a && b) pairProblem(a, b, name(i), name(j), out);
    }
  }
  return out;
}
