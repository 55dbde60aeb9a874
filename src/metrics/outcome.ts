import type { ExchangeRecord } from '../core/record.js';

/**
 * How an exchange ended, coarse enough to keep one histogram each: 429s and transport errors are
 * split out because their latencies say different things (a fast rejection, a timeout) and would
 * otherwise drag the 2xx percentiles around. `other` holds 1xx/3xx, which the client rarely sees.
 */
export const OUTCOMES = ['2xx', '429', '4xx', '5xx', 'error', 'other'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export function outcomeOf(r: ExchangeRecord): Outcome {
  const s = r.status;
  if (r.error !== undefined || s === undefined) return 'error';
  if (s >= 200 && s < 300) return '2xx';
  if (s === 429) return '429';
  if (s >= 400 && s < 500) return '4xx';
  if (s >= 500) return '5xx';
  return 'other';
}

/** The key `byStatus` counts under: the code, or `error` when no response arrived. */
export function statusKey(r: ExchangeRecord): string {
  return r.error !== undefined || r.status === undefined ? 'error' : String(r.status);
}

export function isOutcome(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}
