import { z } from 'zod';

/**
 * Every allowance the checks make for clocks and windows, explicit and documented, because a
 * check that fires on a legal race is worse than no check. Times are milliseconds.
 */
export const TolerancesSchema = z.strictObject({
  /** Our send/receive times vs the server's: how far apart two clocks may read the same instant. */
  clockSkewMs: z
    .number()
    .nonnegative()
    .default(1000)
    .describe("allowed disagreement between our clock and the service's"),
  /** A job may outlive its ttl or retention by this much before `lifecycle.ttl-ignored` / `retention-ignored` fire. */
  expiryGraceMs: z
    .number()
    .nonnegative()
    .default(5000)
    .describe('how long past ttl or retention a job may still be served'),
  /** A job may run this much longer than its executionTimeout before `lifecycle.timeout-ignored` fires. */
  timeoutGraceMs: z
    .number()
    .nonnegative()
    .default(2000)
    .describe('how long past executionTimeout a job may run'),
  /** /runsync may answer this much later than its `wait`. */
  waitGraceMs: z
    .number()
    .nonnegative()
    .default(2000)
    .describe('how much later than wait /runsync may answer'),
  /** Rate windows: requests this close to a window edge are counted on both sides. */
  windowEdgeMs: z.number().nonnegative().default(250).describe('slack at the edges of a 10 s rate window'),
  /** Accepted requests beyond the effective limit allowed before `ratelimit.not-enforced` fires (fraction). */
  rateOverrun: z.number().nonnegative().default(0.05).describe('fraction over the effective limit tolerated'),
  /** A 429 counts as early only when the window held fewer than limit × (1 − this) requests. */
  rateUnderrun: z
    .number()
    .nonnegative()
    .max(1)
    .default(0.05)
    .describe('fraction under the limit at which a 429 is early'),
  /** Spacing of webhook retries may differ from 10 s by this much. */
  webhookSpacingMs: z
    .number()
    .nonnegative()
    .default(3000)
    .describe('allowed deviation of webhook retry spacing from 10 s'),
  /** How long after a job's final state we wait for its webhook before calling it missing. */
  webhookWaitMs: z
    .number()
    .nonnegative()
    .default(30_000)
    .describe('how long to wait for a webhook after the final state'),
  /** Reported delayTime/executionTime may exceed what we observed by this much. */
  timingSlackMs: z
    .number()
    .nonnegative()
    .default(1000)
    .describe('slack between reported and observed job timings'),
  /**
   * Scale-up: queued work may wait this much beyond the scale-up bound, and a worker a job that
   * was queued this long before a /health read called for may still show as new in it.
   */
  scaleUpGraceMs: z
    .number()
    .nonnegative()
    .default(1000)
    .describe('slack on the scale-up bound, and how late a new worker may show in /health'),
  /** Workers above workersMin may stay idle this long past idleTimeout before `scaling.no-scale-down` fires. */
  scaleDownGraceMs: z
    .number()
    .nonnegative()
    .default(5000)
    .describe('how long past idleTimeout idle workers above workersMin may stay'),
});

export type Tolerances = z.infer<typeof TolerancesSchema>;

export const DEFAULT_TOLERANCES: Tolerances = TolerancesSchema.parse({});
