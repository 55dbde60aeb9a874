import type { RetryPolicy } from './client-options.js';

/**
 * Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or unreadable, so the caller falls back to its own backoff.
 */
export function retryAfterMs(value: string | undefined, nowEpochMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowEpochMs);
}

/**
 * Wait before retry number `retry` (1 for the first retry). The server's `Retry-After` wins when
 * present because it knows its window; otherwise exponential backoff with full jitter, which
 * spreads a burst of throttled clients instead of having them retry in lockstep. Both are capped
 * at `maxMs` so one answer cannot stall a run.
 */
export function backoffDelay(policy: RetryPolicy, retry: number, retryAfter?: string): number {
  const asked = retryAfterMs(retryAfter);
  if (asked !== undefined) return Math.min(policy.maxMs, asked);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  const random = policy.random ?? Math.random;
  return random() * ceiling;
}
