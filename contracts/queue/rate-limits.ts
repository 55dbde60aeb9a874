import type { QueueOperation } from '../../src/core/operation.js';

/** One row of SPEC "Limits" → rate limits. */
export interface RateLimit {
  /** Requests accepted per `windowMs`, per endpoint. */
  perWindow: number;
  /** Requests in flight at once, per endpoint; undefined where the spec says "not applicable". */
  concurrent?: number;
}

/** SPEC "Limits": "requests per 10 seconds". */
export const RATE_WINDOW_MS = 10_000;

/**
 * SPEC "Limits", enforced per endpoint and operation. /retry, /health and /status-sync have no
 * limit in the spec ("not shown"), so they have no row and are never judged.
 */
export const RATE_LIMITS: Partial<Record<QueueOperation, RateLimit>> = {
  runsync: { perWindow: 2000, concurrent: 400 },
  run: { perWindow: 1000, concurrent: 200 },
  status: { perWindow: 2000, concurrent: 400 },
  stream: { perWindow: 2000, concurrent: 400 },
  cancel: { perWindow: 100, concurrent: 20 },
  'purge-queue': { perWindow: 2 },
  // POST /openai/* only: GET /openai/v1/models is not in the table.
  openai: { perWindow: 2000, concurrent: 400 },
  requests: { perWindow: 10, concurrent: 2 },
};

/**
 * SPEC "Dynamic rate limiting": the effective limit is the higher of the base limit and
 * running workers × requests per worker. It scales the per-window rate; the spec gives no
 * dynamic rule for concurrency, so the concurrency cap stays the base value.
 */
export function effectiveRateLimit(base: number, runningWorkers: number, requestsPerWorker: number): number {
  return Math.max(base, Math.max(0, runningWorkers) * Math.max(0, requestsPerWorker));
}
