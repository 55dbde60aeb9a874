import {
  isExpired,
  knownOutcomes,
  skipReasons,
  type KnownDeviation,
  type KnownDeviations,
} from '../core/known-deviation.js';
import type { RunRecord } from '../core/record.js';
import type { KnownSummary, Summary } from './summary.js';

/** What a summary needs to say which checks were skipped and which deviations were accepted. */
export interface CheckingSetup {
  known?: KnownDeviations & {
    /** Whether entry `index` had expired when the run started (as the checker judged it). */
    expired: (entry: KnownDeviation, index: number) => boolean;
  };
  skipped?: Record<string, string>;
}

/** Findings per known entry (by index), added up over the check ids. */
function findingsByEntry(
  violations: readonly { entries?: Record<string, number> }[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of violations)
    for (const [k, n] of Object.entries(v.entries ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** The summary's `known` section: each entry with the findings the violations counted for it. */
export function knownSummary(
  setup: NonNullable<CheckingSetup['known']>,
  violations: readonly { entries?: Record<string, number> }[],
): KnownSummary {
  return {
    file: setup.file,
    entries: knownOutcomes(setup.entries, findingsByEntry(violations), setup.expired),
  };
}

/** A run's setup, from its run record: expiry judged at its start, the skip list over `ids`. */
export function runSetup(run: RunRecord, ids: readonly string[]): CheckingSetup {
  const skipped = skipReasons(run.skipChecks ?? [], ids);
  const known = run.known;
  return {
    ...(known ? { known: { ...known, expired: (e: KnownDeviation) => isExpired(e, run.startedAtMs) } } : {}),
    ...(skipped.size > 0 ? { skipped: Object.fromEntries(skipped) } : {}),
  };
}

/** An entry as its file said it, without what a run made of it. */
export function entryOf(o: KnownSummary['entries'][number]): KnownDeviation {
  return {
    check: o.check,
    ...(o.operation === undefined ? {} : { operation: o.operation }),
    ...(o.status === undefined ? {} : { status: o.status }),
    ...(o.message === undefined ? {} : { message: o.message }),
    why: o.why,
    who: o.who,
    ...(o.expires === undefined ? {} : { expires: o.expires }),
  };
}

/**
 * A merge's setup, from the summaries merged: the known entries of the first that had any (shards of
 * one run read one file), each expired as it was judged there, and every id any of them skipped.
 */
export function mergedSetup(summaries: readonly Pick<Summary, 'known' | 'skipped'>[]): CheckingSetup {
  const known = summaries.find((s) => s.known)?.known;
  const skipped: Record<string, string> = {};
  for (const s of summaries) for (const [id, why] of Object.entries(s.skipped ?? {})) skipped[id] ??= why;
  return {
    ...(known
      ? {
          known: {
            file: known.file,
            entries: known.entries.map(entryOf),
            expired: (_: KnownDeviation, i: number) => known.entries[i]?.state === 'expired',
          },
        }
      : {}),
    ...(Object.keys(skipped).length > 0 ? { skipped } : {}),
  };
}
