import type { Step, StepKind } from '../../scenario/scenario.js';
import { cancel } from './cancel.js';
import { advance, loop, sleep } from './control.js';
import { health, purge } from './endpoint-call.js';
import type { IterationState, StepRunner } from './iteration-state.js';
import { retry, status } from './job-call.js';
import { openai, requests } from './openai.js';
import { poll } from './poll.js';
import { blast, probe } from './probe.js';
import { stream } from './stream.js';
import { submit } from './submit.js';

/** One runner per step kind (DESIGN rule 6: a Step per kind, registered by name, no switch). */
const STEP_RUNNERS: { [K in StepKind]: StepRunner<Extract<Step, { kind: K }>> } = {
  run: submit,
  runsync: submit,
  poll,
  stream,
  cancel,
  retry,
  status,
  purge,
  health,
  sleep,
  advance,
  loop,
  probe,
  blast,
  openai,
  requests,
};

export function runStep(step: Step, it: IterationState): Promise<boolean> {
  // The mapped type pairs each kind with its runner; TypeScript cannot follow that through a union.
  const runner = STEP_RUNNERS[step.kind] as StepRunner<Step>;
  return runner(step, it);
}

export { reached } from './poll.js';
export type { IterationState, StepRunner } from './iteration-state.js';
