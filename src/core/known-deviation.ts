import { globToRegExp } from './check-glob.js';
import type { Operation } from './operation.js';

/*
 * Checks a run does not run, and deviations it accepts (issue 53): a nightly run against an endpoint
 * with a finding its owners cannot fix this week stays useful, since only what is new fails it.
 * These types live in core because the scenario (which reads them), the run record (which carries
 * them into records.ndjson, so `jobstorm check` judges the same way), the checker (which applies
 * them) and the reports all read them.
 */

/** A check that is not run, and why (`--skip-check`, the scenario's `checks.skip`). */
export interface SkippedCheck {
  /** A check id, or a glob of ids (`auth.*`). */
  check: string;
  why: string;
}

/** One accepted deviation of a known-deviations file (`--known`, the scenario's `checks.known`). */
export interface KnownDeviation {
  /** A check id, or a glob of ids. */
  check: string;
  /** Only findings about this operation. */
  operation?: Operation;
  /** Only findings whose cited exchange was answered with this status code. */
  status?: number;
  /** A regular expression the finding's message must match (unanchored). */
  message?: string;
  why: string;
  who: string;
  /**
   * When it stops matching: a date (`2026-03-31`, which holds through that day, UTC) or an ISO 8601
   * instant with its offset. Absent: it never expires.
   */
  expires?: string;
}

/** The accepted deviations of a run, and the file they came from. */
export interface KnownDeviations {
  /** The file as it was given (a path), for the reports. */
  file: string;
  entries: KnownDeviation[];
}

/** The entry of the run's known deviations that a finding matched (`entry`: its index). */
export interface KnownMatch {
  entry: number;
  /** The entry had expired when the run started: it no longer accepts, so the finding is new. */
  expired?: true;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The instant (epoch ms) an `expires` value ends the entry, or undefined when it is neither form.
 * A bare date holds through its whole day in UTC, so "expires 2026-03-31" still matches that day
 * wherever the run happens; an instant needs its offset, so it means one moment on every machine.
 */
export function expiryMs(expires: string): number | undefined {
  const d = DATE.exec(expires);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const start = Date.UTC(y, m - 1, day);
    const back = new Date(start);
    // 2026-02-30 is not a date: Date.UTC would roll it over to March.
    if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== day)
      return undefined;
    return Date.UTC(y, m - 1, day + 1);
  }
  if (!INSTANT.test(expires)) return undefined;
  const at = Date.parse(expires);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Whether the entry had expired at `atMs`. A run judges expiry at its start, so the same records
 * checked later (`jobstorm check`) get the same answer.
 */
export function isExpired(entry: Pick<KnownDeviation, 'expires'>, atMs: number): boolean {
  if (entry.expires === undefined) return false;
  const end = expiryMs(entry.expires);
  return end !== undefined && atMs >= end;
}

/** The finding matched an entry that still held: it is known, shown and counted, and fails nothing. */
export function isAccepted(v: { known?: KnownMatch }): boolean {
  return v.known !== undefined && v.known.expired !== true;
}

/**
 * What became of an entry in a run: it accepted findings (`matched`), it had expired (its findings,
 * if any, were new again), or it matched nothing (`unseen`: the deviation is gone, time to delete it).
 */
export type KnownState = 'matched' | 'expired' | 'unseen';

export function knownState(expired: boolean, findings: number): KnownState {
  if (expired) return 'expired';
  return findings > 0 ? 'matched' : 'unseen';
}

/** An entry as a run's reports show it: how many findings it matched, and what became of it. */
export interface KnownOutcome extends KnownDeviation {
  /** Findings it matched: accepted ones, or, for an expired entry, those it would have accepted. */
  findings: number;
  state: KnownState;
}

/** A run's known deviations as its results show them: the file, and each entry's outcome. */
export interface KnownResults {
  /** The file they came from, as given. */
  file: string;
  entries: KnownOutcome[];
}

/** Each entry with its findings (by entry index) and its state. */
export function knownOutcomes(
  entries: readonly KnownDeviation[],
  findings: Readonly<Record<string, number>>,
  expired: (entry: KnownDeviation, index: number) => boolean,
): KnownOutcome[] {
  return entries.map((e, i) => {
    const n = findings[String(i)] ?? 0;
    return { ...e, findings: n, state: knownState(expired(e, i), n) };
  });
}

/**
 * Each of `ids` a skip list names, with the reason of the first item that names it: the one reading
 * of a skip list, for the checker (which does not run them) and the summary (which lists them).
 */
export function skipReasons<Id extends string>(
  skip: readonly SkippedCheck[],
  ids: readonly Id[],
): Map<Id, string> {
  const out = new Map<Id, string>();
  for (const s of skip) {
    const re = globToRegExp(s.check);
    for (const id of ids) if (re.test(id) && !out.has(id)) out.set(id, s.why);
  }
  return out;
}
