import { z } from 'zod';
import { PositiveDurationSchema, RateSchema, durationText } from './field-schemas.js';

/*
 * One phase of load. Every field is optional in the schema so editors offer all of them; which
 * combinations make sense (exactly one of rate, ramp, vus; count alone or with rate) is checked by
 * the cross-field rules, which can say precisely what is wrong.
 */
export const PhaseSchema = z
  .strictObject({
    name: z.string().min(1).optional().describe('Label shown in reports.'),
    duration: PositiveDurationSchema.optional().describe(
      durationText('How long the phase lasts (with rate, ramp or vus).', '30s'),
    ),
    rate: RateSchema.optional().describe(
      'Constant arrival rate per second; with count, the rate the count arrives at.',
    ),
    ramp: z
      .strictObject({
        from: RateSchema.describe('Rate per second at the start of the phase.'),
        to: RateSchema.describe('Rate per second at the end of the phase.'),
      })
      .optional()
      .describe('Linear ramp of the arrival rate over the duration.'),
    count: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('A fixed number of arrivals: at rate, or all at once without one.'),
    vus: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Closed model: this many virtual users loop the flows for the duration.'),
  })
  .describe('A phase: duration + rate, duration + ramp, count (+ rate), or duration + vus.');

export type PhaseInput = z.input<typeof PhaseSchema>;
