import { type ViolationGroup } from '../../src/check/checker.js';
import { rateLimitCheck, type RateCeiling } from '../../src/check/checks/ratelimit-check.js';
import type { Tolerances } from '../../src/check/tolerances.js';
import type { QueueOperation } from '../../src/core/operation.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import { ex, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * Saved records for the rate-limit rules, and a checker that runs those rules alone. The defaults:
 * cancel allows 100 requests per 10 s and 20 in flight; a 429 is early under 94 requests in its
 * window (100 × 0.95 − 1) and under 18 in flight; more than 106 accepted (100 × 1.05 + 1) is not
 * enforcing the limit; the run's requestsPerWorker is 10.
 */

export const RATE_IDS = ['ratelimit.early', 'ratelimit.not-enforced', 'ratelimit.retry-after'] as const;

export interface RateOutcome {
  /** Findings per id (ids without one left out). */
  found: Record<string, number>;
  /** Observations judged per id. */
  judged: Record<string, number>;
  groups: ViolationGroup[];
  ceilings: RateCeiling[];
}

export function judgeRates(
  records: JobstormRecord[],
  options: { run?: Partial<RunRecord>; tolerances?: Partial<Tolerances> } = {},
): RateOutcome {
  const check = rateLimitCheck();
  const checker = new FoldedChecker(runRecord(options.run), {
    checks: [check],
    ...(options.tolerances ? { tolerances: options.tolerances } : {}),
  });
  for (const r of records) checker.add(r);
  const result = checker.finish();
  const groups = result.violations.filter((g) => g.id.startsWith('ratelimit.'));
  return {
    found: Object.fromEntries(groups.map((g) => [g.id, g.count])),
    judged: Object.fromEntries(RATE_IDS.map((id) => [id, result.coverage[id] ?? 0])),
    groups,
    ceilings: check.ceilings(),
  };
}

/** An accepted request sent at `at`. */
export const ok = (at: number, took = 1, op: QueueOperation = 'cancel'): ExchangeRecord =>
  ex(op, at, 200, undefined, { took });

/** A request answered 404: counted by the window, never accepted. */
export const refused404 = (at: number, took = 1): ExchangeRecord =>
  ex('cancel', at, 404, undefined, { took });

/** A 429, with a Retry-After of 3 s unless told. */
export const throttled = (
  at: number,
  extra: { retryAfter?: string; took?: number; op?: QueueOperation } = {},
): ExchangeRecord => {
  const { retryAfter = '3', took = 1, op = 'cancel' } = extra;
  return ex(op, at, 429, { error: 'slow down' }, { took, ...(retryAfter === '' ? {} : { retryAfter }) });
};

/** `n` records made by `make` at evenly spaced send times in [from, to). */
export function spread(
  n: number,
  from: number,
  to: number,
  make: (at: number) => ExchangeRecord,
): ExchangeRecord[] {
  return Array.from({ length: n }, (_, i) => make(from + (i * (to - from)) / n));
}

/** `n` copies made by `make` at the same send time. */
export const times = (n: number, make: () => ExchangeRecord): ExchangeRecord[] =>
  Array.from({ length: n }, () => make());

/** A /health answer sent at `at` showing `running` workers. */
export const health = (at: number, running: number): ExchangeRecord =>
  ex(
    'health',
    at,
    200,
    { workers: { idle: 0, running }, jobs: { inQueue: 0, inProgress: running } },
    { took: 1 },
  );
