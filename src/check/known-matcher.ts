import { globToRegExp } from '../core/check-glob.js';
import {
  isExpired,
  skipReasons,
  type KnownDeviation,
  type KnownMatch,
  type SkippedCheck,
} from '../core/known-deviation.js';
import type { Violation } from '../core/violation.js';
import { CHECK_CATALOG, type CheckId } from './catalog.js';

interface CompiledEntry {
  index: number;
  check: RegExp;
  operation?: string;
  status?: number;
  message?: RegExp;
  expired: boolean;
}

/** Whether `v` is the kind of finding the entry describes (its expiry aside). */
function describes(e: CompiledEntry, v: Violation): boolean {
  return (
    e.check.test(v.id) &&
    (e.operation === undefined || e.operation === v.op) &&
    (e.status === undefined || e.status === v.evidence.status) &&
    (e.message === undefined || e.message.test(v.message))
  );
}

/**
 * Finds the entry of a run's known deviations that a finding matches. Expiry is judged once, at the
 * run's start, so live and offline checking of the same records agree. The patterns were validated
 * when the file was read (src/scenario/known-file.ts).
 */
export class KnownMatcher {
  private readonly entries: CompiledEntry[];

  constructor(entries: readonly KnownDeviation[], runStartMs: number) {
    this.entries = entries.map((e, index) => ({
      index,
      check: globToRegExp(e.check),
      ...(e.operation === undefined ? {} : { operation: e.operation }),
      ...(e.status === undefined ? {} : { status: e.status }),
      ...(e.message === undefined ? {} : { message: new RegExp(e.message) }),
      expired: isExpired(e, runStartMs),
    }));
  }

  /** Whether entry `index` had expired when the run started. */
  expired(index: number): boolean {
    return this.entries[index]?.expired === true;
  }

  /**
   * The first entry in force that describes the finding; else the first expired one that does, so
   * the reports can say which entry ran out; else none (the finding is new).
   */
  match(v: Violation): KnownMatch | undefined {
    let lapsed: CompiledEntry | undefined;
    for (const e of this.entries) {
      if (!describes(e, v)) continue;
      if (!e.expired) return { entry: e.index };
      lapsed ??= e;
    }
    return lapsed === undefined ? undefined : { entry: lapsed.index, expired: true };
  }
}

/** Each check id a skip list names, with why. */
export function skippedIds(skip: readonly SkippedCheck[]): Map<CheckId, string> {
  return skipReasons(
    skip,
    CHECK_CATALOG.map((c) => c.id),
  );
}
