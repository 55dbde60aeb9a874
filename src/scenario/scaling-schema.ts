import { z } from 'zod';
import type { ScalingExpectation } from '../core/scaling-expectation.js';
import { DurationSchema, PositiveDurationSchema, durationText } from './field-schemas.js';

/*
 * What the run expects of the endpoint's scaling. Against a real target these are the endpoint's
 * settings as the user knows them; left out, the scaling checks that need one say "not exercised"
 * rather than guess. Against the embedded emulator the emulator's own settings fill the gaps.
 */
export const ScalingSchema = z
  .strictObject({
    workersMin: z.number().int().min(0).optional().describe('Workers the endpoint keeps warm.'),
    workersMax: z.number().int().min(1).optional().describe('Most workers the endpoint may run.'),
    idleTimeout: DurationSchema.optional().describe(
      durationText('Idle time after which a worker above workersMin should stop.', '5s'),
    ),
    scaleUpWithin: PositiveDurationSchema.optional().describe(
      durationText(
        'Queued work with workers below workersMax longer than this is reported as stuck scaling.',
        '30s',
      ),
    ),
    pricePerWorkerSecond: z
      .number()
      .min(0)
      .optional()
      .describe(
        'Price of one worker-second; with it the reports give the cost of the run and per 1,000 jobs.',
      ),
    currency: z.string().min(1).max(8).optional().describe('Currency label for the cost, e.g. USD.'),
  })
  .optional()
  .describe("The endpoint's scaling settings, for the scaling checks and the worker cost.");

/** The scenario's `scaling:` block, durations in ms; every field optional (the type the run record carries). */
export type { ScalingExpectation };

export function normalizeScaling(s: z.output<typeof ScalingSchema>): ScalingExpectation | undefined {
  if (s === undefined) return undefined;
  // Only the fields given: resolveScaling spreads these over the embedded emulator's own, which an undefined would wipe.
  return {
    ...(s.workersMin === undefined ? {} : { workersMin: s.workersMin }),
    ...(s.workersMax === undefined ? {} : { workersMax: s.workersMax }),
    ...(s.idleTimeout === undefined ? {} : { idleTimeoutMs: s.idleTimeout }),
    ...(s.scaleUpWithin === undefined ? {} : { scaleUpWithinMs: s.scaleUpWithin }),
    ...(s.pricePerWorkerSecond === undefined ? {} : { pricePerWorkerSecond: s.pricePerWorkerSecond }),
    ...(s.currency === undefined ? {} : { currency: s.currency }),
  };
}
