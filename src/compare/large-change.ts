import type { ThresholdUnit } from '../report/summary.js';

/**
 * A "large" change is one no reader may be left to take for "no change": when such a row could not
 * be tested, the headline names it. Doubling or halving is far past the few per cent that the
 * per-second histograms resolve or that a rerun moves a percentile, yet small enough that a real
 * regression of a service (a cache gone, a pool exhausted) clears it.
 */
export const LARGE_FACTOR = 2;
/** Times closer than this are timer and scheduling jitter of the client, however large their ratio. */
export const LARGE_MIN_MS = 1;
/** Shares closer than this (one percentage point) are a handful of requests in a short run. */
export const LARGE_MIN_SHARE = 0.01;
/** A count's per-second rate must move beyond this many standard deviations of a Poisson count. */
export const LARGE_COUNT_SIGMAS = 3;

/** The rules above in words, for the reports. */
export const LARGE_RULE = `Large: a time or a rate per second that grew ×${LARGE_FACTOR} or more or shrank to ×${1 / LARGE_FACTOR} or less (times also ${LARGE_MIN_MS} ms apart); a share (error, 5xx, 429 and final-state rates) that doubled or halved, or whose complement did, by at least ${LARGE_MIN_SHARE * 100} percentage point; a count whose rate per second doubled or halved beyond ${LARGE_COUNT_SIGMAS} standard deviations of Poisson noise. A large change that could not be tested is named in the headline, never counted as no change.`;

export interface SideValue {
  value: number;
  /** The run's measured seconds: counts of runs of different length are compared per second. */
  seconds: number;
}

/** hi / lo of two non-negative values; Infinity when only one is 0, 1 when both are. */
export function factorBetween(a: number, b: number): number {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  if (hi === 0) return 1;
  return lo === 0 ? Infinity : hi / lo;
}

function largeCount(b: SideValue, c: SideValue): boolean {
  if (b.seconds <= 0 || c.seconds <= 0) return false;
  const rb = b.value / b.seconds;
  const rc = c.value / c.seconds;
  const sd = Math.sqrt(b.value / b.seconds ** 2 + c.value / c.seconds ** 2);
  return factorBetween(rb, rc) >= LARGE_FACTOR && Math.abs(rc - rb) > LARGE_COUNT_SIGMAS * sd;
}

function largeShare(b: number, c: number): boolean {
  if (Math.abs(c - b) < LARGE_MIN_SHARE) return false;
  return factorBetween(b, c) >= LARGE_FACTOR || factorBetween(1 - b, 1 - c) >= LARGE_FACTOR;
}

const RULES: Record<ThresholdUnit, (b: SideValue, c: SideValue) => boolean> = {
  ms: (b, c) =>
    Math.abs(c.value - b.value) >= LARGE_MIN_MS && factorBetween(b.value, c.value) >= LARGE_FACTOR,
  rps: (b, c) => factorBetween(b.value, c.value) >= LARGE_FACTOR,
  ratio: (b, c) => largeShare(b.value, c.value),
  count: largeCount,
};

export function isLarge(unit: ThresholdUnit, b: SideValue, c: SideValue): boolean {
  return RULES[unit](b, c);
}

/** "×24", "×0.04": current over baseline, for a reader's eye; "" when the baseline is 0. */
export function factorText(baseline: number, current: number): string {
  if (baseline === 0) return '';
  const f = current / baseline;
  return `×${f >= 10 ? f.toFixed(0) : f >= 1 ? f.toFixed(1) : Number(f.toPrecision(2)).toString()}`;
}
