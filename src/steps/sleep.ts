import { z } from 'zod';
import { DurationSchema, bareDurationError, durationText } from '../scenario/field-schemas.js';
import { isRecord, ms } from '../scenario/raw-value.js';
import type { StepRunner } from './iteration-state.js';
import { defineStep, type StepRules } from './step-kind.js';

/** Think time, uniform in [minMs, maxMs] (equal for a fixed sleep). */
export interface SleepStep {
  readonly kind: 'sleep';
  readonly minMs: number;
  readonly maxMs: number;
}

const SleepSchema = z
  .union(
    [
      DurationSchema,
      z.strictObject({
        min: DurationSchema.describe(durationText('Shortest think time.', '500ms')),
        max: DurationSchema.describe(durationText('Longest think time.', '2s')),
      }),
    ],
    { error: (iss) => bareDurationError(iss.input) },
  )
  .describe(durationText('Think time: a fixed duration or a uniform range {min, max}.', '1s'))
  .transform((s): SleepStep =>
    typeof s === 'number'
      ? { kind: 'sleep', minMs: s, maxMs: s }
      : { kind: 'sleep', minMs: s.min, maxMs: s.max },
  );

const rules: StepRules = (payload, at) => {
  if (!isRecord(payload)) return [];
  const [min, max] = [ms(payload.min), ms(payload.max)];
  return min !== undefined && max !== undefined && max < min
    ? [{ path: [...at, 'max'], message: 'must not be less than min' }]
    : [];
};

/** Think time, uniform in [minMs, maxMs]. */
const think: StepRunner<SleepStep> = (step, it) => {
  const ms = step.minMs + (step.maxMs - step.minMs) * it.ctx.random();
  // Think time is not latency: the next request is meant to start when the sleep ends.
  return it.waitFor(ms);
};

export const sleep = defineStep({
  name: 'sleep',
  example: '1s',
  payload: () => SleepSchema,
  rules,
  run: think,
});
