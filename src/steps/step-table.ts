import { z } from 'zod';
import type { IterationState, StepRunner } from './iteration-state.js';
import type { loop, LoopStep } from './loop.js';
import type { NestedStepSchema, StepBase, StepKind, StepRules } from './step-kind.js';
import { STEP_KINDS } from './step-list.js';

/*
 * What the list of step kinds gives everyone else: the step union (type and schema), each kind's
 * payload schema and rules by name, and the runner of a step.
 */

type Kinds = (typeof STEP_KINDS)[number];

type Normalized<K> = K extends StepKind<string, infer P> ? z.output<P> : never;
type Written<K> = K extends StepKind<infer N, infer P> ? { [Key in N]: z.input<P> } : never;

/** A step as the runner reads it. The loop kind cannot name the union it nests, so it is tied here. */
export type Step = Exclude<Normalized<Kinds>, { kind: 'loop' }> | LoopStep<Step>;
export type StepKindName = Step['kind'];
export type StepName = Kinds['name'];

type LoopInput = Omit<z.input<ReturnType<(typeof loop)['payload']>>, 'steps'> & {
  steps: StepInput[];
};
/** A step as a scenario file (or defineScenario) writes it: an object with one key naming it. */
export type StepInput = Exclude<Written<Kinds>, { loop: unknown }> | { loop: LoopInput };

export const STEP_NAMES: readonly StepName[] = STEP_KINDS.map((k) => k.name);

/** A kind with its type erased, as the tables hold it. */
export interface ListedKind {
  readonly name: StepName;
  readonly example: unknown;
  readonly payload: NestedStepSchema;
  readonly needsJob: boolean;
  readonly rules: StepRules | undefined;
  readonly nests: string | undefined;
  readonly template: ((step: StepBase) => Readonly<Record<string, unknown>> | undefined) | undefined;
  readonly children: ((step: StepBase) => readonly StepBase[]) | undefined;
  readonly run: StepRunner<StepBase>;
}

const nested = (): NestedStepSchema => StepSchema;

const KINDS = new Map<string, ListedKind>(
  STEP_KINDS.map((k): [string, ListedKind] => [
    k.name,
    {
      name: k.name,
      example: k.example,
      payload: k.payload(nested),
      needsJob: k.needsJob === true,
      rules: k.rules,
      nests: k.nests,
      // Each function is filed under its own kind; TypeScript cannot follow that through the union.
      template: k.template as ListedKind['template'],
      children: k.children as ListedKind['children'],
      run: k.run as StepRunner<StepBase>,
    },
  ]),
);

/** The kind named `name`, or undefined for a name that is not a step. */
export function stepKind(name: string): ListedKind | undefined {
  return KINDS.get(name);
}

/** Each branch is an object with the kind's one key, normalized to the step under it. */
function branch(k: ListedKind): z.ZodType<StepBase> {
  return z.strictObject({ [k.name]: k.payload }).transform((o) => o[k.name] as StepBase);
}

export const StepSchema = z
  .union([...KINDS.values()].map(branch))
  .describe('A step: an object with exactly one key naming it.')
  .meta({ id: 'Step' }) as unknown as z.ZodType<Step, StepInput>;

export function runStep(step: Step, it: IterationState): Promise<boolean> {
  const kind = KINDS.get(step.kind);
  if (kind === undefined) throw new Error(`no runner for step kind ${step.kind}`);
  return kind.run(step, it);
}
