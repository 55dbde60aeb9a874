/**
 * SPEC "Limits", "policy object" and "Result retention" as numbers. All times are milliseconds.
 *
 * The spec writes sizes in "MB" without saying decimal or binary, so each size limit is a band:
 * a body at or under `surelyAccepted` must be accepted, one over `surelyRejected - 1` must be
 * rejected, and a body in between may go either way. Checks never fire inside the band.
 */
export interface SizeBand {
  /** Largest size that must be accepted (the decimal reading). */
  surelyAccepted: number;
  /** Smallest size that must be rejected (one byte over the binary reading). */
  surelyRejected: number;
}

function megabytes(n: number): SizeBand {
  return { surelyAccepted: n * 1_000_000, surelyRejected: n * 1_048_576 + 1 };
}

export interface IntRange {
  min: number;
  max: number;
  default?: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

export const LIMITS = {
  /** SPEC "Limits": /run maximum payload 10 MB. */
  runPayload: megabytes(10),
  /** SPEC "Limits": /runsync maximum payload 20 MB. */
  runsyncPayload: megabytes(20),
  /** SPEC "GET /stream": a single streamed chunk is at most 1 MB. */
  streamChunk: megabytes(1),
  /** SPEC "POST /runsync": wait, 1000 to 300000 ms, default 90000 ms. */
  wait: { min: 1000, max: 300_000, default: 90_000 } satisfies IntRange,
  /** SPEC "policy object": executionTimeout default 10 min, min 5 s, max 7 days. */
  executionTimeout: { min: 5 * SECOND, max: 7 * DAY, default: 10 * MINUTE } satisfies IntRange,
  /** SPEC "policy object": ttl default 24 h, min 10 s, max 7 days. */
  ttl: { min: 10 * SECOND, max: 7 * DAY, default: DAY } satisfies IntRange,
  /**
   * SPEC "GET /status": `?ttl=` sets the job's time-to-live ("6000 means 6 seconds", so the policy
   * minimum does not apply); the spec gives no bounds, we take 1 ms to the policy maximum.
   */
  statusTtl: { min: 1, max: 7 * DAY } satisfies IntRange,
  /** SPEC "Result retention": 30 minutes after /run. */
  retentionRun: 30 * MINUTE,
  /** SPEC "Result retention": 1 minute after /runsync (5 minutes at most). */
  retentionRunsync: MINUTE,
  retentionRunsyncMax: 5 * MINUTE,
  /** SPEC "Events" 3: up to 2 more attempts, 10 seconds apart. */
  webhookRetries: 2,
  webhookRetrySpacing: 10 * SECOND,
} as const;

export type Limits = typeof LIMITS;
