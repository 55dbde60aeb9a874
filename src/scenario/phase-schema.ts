import { z } from 'zod';
import { TRACE_FORMAT_NAMES, type TraceFormatName } from '../trace/index.js';
import { DurationSchema, PositiveDurationSchema, RateSchema, durationText } from './field-schemas.js';

/** A trace to replay instead of a rate (docs/replay.md). */
export const ReplaySchema = z
  .strictObject({
    file: z.string().min(1).describe('The trace file, relative to the scenario file (or absolute).'),
    format: z
      .enum(TRACE_FORMAT_NAMES as [TraceFormatName, ...TraceFormatName[]])
      .describe(`How the trace is written: ${TRACE_FORMAT_NAMES.join(', ')}.`),
    timeScale: z
      .number()
      .positive()
      .default(1)
      .describe('How much faster than written the trace plays: 2 = twice as fast, 0.5 = half as fast.'),
    from: DurationSchema.optional().describe(
      durationText("Start of the window to replay, counted from the trace's first row (included).", '10m'),
    ),
    to: PositiveDurationSchema.optional().describe(
      durationText("End of the window to replay, counted from the trace's first row (not included).", '20m'),
    ),
    loop: z
      .union([z.number().int().min(1), z.boolean()])
      .default(1)
      .describe(
        'How many times the window is played (true = twice, false = once); each pass starts where the one before ended.',
      ),
  })
  .describe('Replays a trace file: each row an arrival at its time, its sizes in the request.');

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
    replay: ReplaySchema.optional(),
    vus: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Closed model: this many virtual users loop the flows for the duration.'),
  })
  .describe('A phase: duration + rate, duration + ramp, count (+ rate), duration + vus, or replay.');

export type PhaseInput = z.input<typeof PhaseSchema>;
