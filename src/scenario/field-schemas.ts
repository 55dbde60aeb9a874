import { z } from 'zod';
import { BYTE_SIZE_PATTERN, byteSizeIssue, parseByteSize } from './byte-size.js';
import { DURATION_PATTERN, durationIssue, parseDuration } from './duration.js';
import { describeValue } from './value-description.js';

/*
 * Schemas for the value kinds that recur across a scenario file. A duration or size is a string
 * with its unit; a bare number is refused with the readings it could have meant (only 0 needs no
 * unit), so the input type, the JSON Schema and the error all say the same thing.
 */

const DURATION_HINT = 'a duration like 500ms, 30s, 1m, 1h30m or 2d';

/**
 * A duration field's description: what it is for, then that the unit is required, with an example
 * that fits the field. Every duration field says so, for editors and the generated reference.
 */
export function durationText(what: string, example: string): string {
  return `${what} A duration with its unit (us, ms, s, m, h or d), e.g. "${example}"; a bare number other than 0 is an error.`;
}

/** The bare-number message for a value a duration schema refused, if that is what it was. */
export function bareDurationError(input: unknown): string | undefined {
  return typeof input === 'string' || typeof input === 'number' ? durationIssue(input) : undefined;
}

const durationError = (input: unknown): string =>
  bareDurationError(input) ?? `expected ${DURATION_HINT}, got ${describeValue(input)}`;

/** A duration as written (`30s`, or 0), normalized to milliseconds. */
export const DurationSchema = z
  .union([z.literal(0), z.string().regex(DURATION_PATTERN, { error: (iss) => durationError(iss.input) })], {
    error: (iss) => durationError(iss.input),
  })
  .transform((v) => (typeof v === 'number' ? v : (parseDuration(v) ?? Number.NaN)))
  .describe(durationText('A length of time.', '30s'));

/** A duration that must be longer than zero (timeouts, phase lengths). */
export const PositiveDurationSchema = DurationSchema.refine((ms) => ms > 0, {
  error: 'must be longer than 0',
});

const SIZE_HINT = 'a size like 512B, 10kB, 10MB, 10MiB';

/** A size field's description: what it is for, then that the unit is required, with an example. */
export function sizeText(what: string, example: string): string {
  return `${what} A size with its unit (B; kB, MB, GB decimal; KiB, MiB, GiB binary), e.g. "${example}"; a bare number other than 0 is an error.`;
}

const sizeError = (input: unknown): string =>
  (typeof input === 'string' || typeof input === 'number' ? byteSizeIssue(input) : undefined) ??
  `expected ${SIZE_HINT}, got ${describeValue(input)}`;

/** A byte count as written (`10MB`, `10MiB`, or 0), normalized to whole bytes. */
export const ByteSizeSchema = z
  .union([z.literal(0), z.string().regex(BYTE_SIZE_PATTERN, { error: (iss) => sizeError(iss.input) })], {
    error: (iss) => sizeError(iss.input),
  })
  .transform((v) => (typeof v === 'number' ? v : (parseByteSize(v) ?? Number.NaN)))
  .describe(sizeText('A number of bytes.', '10MB'));

/** Arrivals per second; fractions allowed (0.5 = one every two seconds). */
export const RateSchema = z.number().nonnegative().describe('Arrivals per second (fractions allowed).');
