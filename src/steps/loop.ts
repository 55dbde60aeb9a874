import { z } from 'zod';
import { isRecord } from '../scenario/raw-value.js';
import type { StepRunner } from './iteration-state.js';
import { defineStep, type NestedStepSchema, type StepBase, type StepRules } from './step-kind.js';

/** Loops inside loops inside loops is the most a readable flow needs. */
export const MAX_LOOP_DEPTH = 3;

/** `S`: the step union, which only the list can name (step-list.ts ties the knot). */
export interface LoopStep<S extends StepBase = StepBase> {
  readonly kind: 'loop';
  readonly times: number;
  readonly steps: readonly S[];
}

const loopSchema = (nested: () => NestedStepSchema) =>
  z
    .strictObject({
      times: z.number().int().min(1).describe('How many times to run the steps.'),
      get steps(): z.ZodArray<NestedStepSchema> {
        return z.array(nested()).min(1).describe('The steps to repeat.');
      },
    })
    .describe('Repeat steps a number of times (loops nest at most 3 deep).')
    .transform((l): LoopStep => ({ kind: 'loop', times: l.times, steps: l.steps }));

const rules: StepRules = (payload, at, flow) => {
  if (flow.depth >= MAX_LOOP_DEPTH)
    return [{ path: at, message: `loops nest at most ${MAX_LOOP_DEPTH} deep`, atKey: true }];
  return isRecord(payload) ? flow.nested(payload.steps, [...at, 'steps']) : [];
};

/** Runs its steps `times` times in the same iteration (same job). */
const repeat: StepRunner<LoopStep> = async (step, it) => {
  for (let i = 0; i < step.times; i++) {
    if (!(await it.steps(step.steps))) return false;
  }
  return true;
};

export const loop = defineStep({
  name: 'loop',
  example: { times: 2, steps: [{ health: {} }] },
  payload: loopSchema,
  rules,
  nests: 'steps',
  run: repeat,
  children: (step) => step.steps,
});
