import { z } from 'zod';
import type { SeededRandom } from '../core/seeded-random.js';
import { LlmSettingsSchema } from './llm-settings.js';

/*
 * A handler profile decides what the simulated handler does for a job whose input does not say
 * (no `sleep_ms`, no `fail`): how long it runs and how often it fails. Named profiles cover the
 * common cases; an object (or a JSON/YAML file through the CLI) describes any other.
 */

const ms = z.number().nonnegative();

export const DurationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fixed'), ms }),
  z.strictObject({ kind: z.literal('uniform'), minMs: ms, maxMs: ms }),
  z.strictObject({ kind: z.literal('exponential'), meanMs: ms }),
  z.strictObject({ kind: z.literal('lognormal'), medianMs: ms, sigma: z.number().positive().default(0.5) }),
]);
export type Duration = z.output<typeof DurationSchema>;

export const ProfileSchema = z.strictObject({
  name: z.string().min(1).default('custom'),
  duration: DurationSchema.default({ kind: 'uniform', minMs: 1, maxMs: 5 }),
  /** Fraction of jobs that end FAILED. */
  failureRate: z.number().min(0).max(1).default(0),
  failureMessage: z.string().min(1).default('simulated handler failure'),
  /** When set, a COMPLETED job's output is a string of this many bytes instead of its input. */
  outputBytes: z
    .number()
    .int()
    .nonnegative()
    .max(64 * 1024 * 1024)
    .optional(),
  /** When set, jobs run as a language model would: prefill, decode, batch slowdown (llm-settings.ts). */
  llm: LlmSettingsSchema.optional(),
});
export type HandlerProfile = z.output<typeof ProfileSchema>;
export type HandlerProfileInput = z.input<typeof ProfileSchema>;

export const PROFILES: Readonly<Record<string, HandlerProfile>> = {
  /** Finishes in a few milliseconds and echoes the input. */
  default: ProfileSchema.parse({ name: 'default' }),
  /** Always immediate: for throughput runs where the handler must not matter. */
  instant: ProfileSchema.parse({ name: 'instant', duration: { kind: 'fixed', ms: 0 } }),
  /** An inference-like handler: median 800 ms with a long tail, 1% failures. */
  realistic: ProfileSchema.parse({
    name: 'realistic',
    duration: { kind: 'lognormal', medianMs: 800, sigma: 0.8 },
    failureRate: 0.01,
  }),
  /** Seconds per job, so queues build up and workers scale. */
  slow: ProfileSchema.parse({ name: 'slow', duration: { kind: 'uniform', minMs: 2000, maxMs: 5000 } }),
  /** Fast but a fifth of jobs fail, for retry flows. */
  flaky: ProfileSchema.parse({
    name: 'flaky',
    duration: { kind: 'uniform', minMs: 5, maxMs: 50 },
    failureRate: 0.2,
  }),
  /** A vLLM-like worker: tokens timed by prefill and decode, 8 jobs a worker, 5 s model load. */
  llm: ProfileSchema.parse({ name: 'llm', llm: { coldStartMs: 5000 } }),
};

/** A profile by name or as an object; the name must be one of PROFILES. */
export const ProfileInputSchema = z.union([
  z.string().refine((name) => Object.hasOwn(PROFILES, name), {
    message: `unknown profile; known: ${Object.keys(PROFILES).join(', ')} (or give an object)`,
  }),
  ProfileSchema,
]);

export function resolveProfile(input: string | HandlerProfile): HandlerProfile {
  if (typeof input !== 'string') return input;
  const found = PROFILES[input];
  if (!found) throw new RangeError(`unknown profile ${input}`);
  return found;
}

/** Draws one execution time (integer ms) from the profile's distribution. */
export function drawDuration(d: Duration, rng: SeededRandom): number {
  switch (d.kind) {
    case 'fixed':
      return Math.round(d.ms);
    case 'uniform': {
      const lo = Math.min(d.minMs, d.maxMs);
      const hi = Math.max(d.minMs, d.maxMs);
      return Math.round(lo + (hi - lo) * rng.next());
    }
    case 'exponential':
      return Math.round(-d.meanMs * Math.log(1 - rng.next()));
    case 'lognormal':
      return Math.round(d.medianMs * Math.exp(d.sigma * rng.normal()));
  }
}
