import { z } from 'zod';
import { BYTE_SIZE_PATTERN, parseByteSize } from './byte-size.js';
import { DURATION_PATTERN, parseDuration } from './duration.js';
import { describeValue } from './value-description.js';

/** Schemas for the value kinds that recur across a scenario file. */

const DURATION_HINT = 'a duration like 500ms, 30s, 1m, 1h30m, 2d or a number of milliseconds';

/** A duration as written (string or number of ms), normalized to milliseconds. */
export const DurationSchema = z
  .union(
    [
      z.number().nonnegative(),
      z.string().regex(DURATION_PATTERN, {
        error: (iss) => `expected ${DURATION_HINT}, got ${describeValue(iss.input)}`,
      }),
    ],
    { error: (iss) => `expected ${DURATION_HINT}, got ${describeValue(iss.input)}` },
  )
  .transform((v) => (typeof v === 'number' ? v : (parseDuration(v) ?? Number.NaN)))
  .describe(`A duration: ${DURATION_HINT}.`);

/** A duration that must be longer than zero (timeouts, phase lengths). */
export const PositiveDurationSchema = DurationSchema.refine((ms) => ms > 0, {
  error: 'must be longer than 0',
});

const SIZE_HINT = 'a size like 1000, 512B, 10kB, 10MB, 10MiB';

/** A byte count as written (number or `10MB`/`10MiB`), normalized to whole bytes. */
export const ByteSizeSchema = z
  .union(
    [
      z.number().int().nonnegative(),
      z.string().regex(BYTE_SIZE_PATTERN, {
        error: (iss) => `expected ${SIZE_HINT}, got ${describeValue(iss.input)}`,
      }),
    ],
    { error: (iss) => `expected ${SIZE_HINT}, got ${describeValue(iss.input)}` },
  )
  .transform((v) => (typeof v === 'number' ? v : (parseByteSize(v) ?? Number.NaN)))
  .describe(`A size in bytes: ${SIZE_HINT} (kB/MB decimal, KiB/MiB binary).`);

/** Arrivals per second; fractions allowed (0.5 = one every two seconds). */
export const RateSchema = z.number().nonnegative().describe('Arrivals per second (fractions allowed).');
