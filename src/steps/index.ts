export type { AdvanceStep } from './advance.js';
export type { BlastStep } from './blast.js';
export type { CancelStep } from './cancel.js';
export type { HealthStep } from './health.js';
export type { ChatMessage, IterationState, StepContext, StepFlow, StepRunner } from './iteration-state.js';
export { MAX_LOOP_DEPTH, type LoopStep as NestingLoopStep } from './loop.js';
export { OPENAI_PATHS, type OpenAiStep } from './openai.js';
export { reached, type PollStep, type PollTarget } from './poll.js';
export { PROBE_NAMES, type ProbeName } from './probe-requests.js';
export type { ProbeStep } from './probe.js';
export type { PurgeStep } from './purge.js';
export type { RequestsStep } from './requests.js';
export type { RetryStep } from './retry.js';
export type { SleepStep } from './sleep.js';
export type { StatusStep } from './status.js';
export type { StreamStep } from './stream.js';
export type { Policy, RunStep, RunsyncStep, S3Config, Submission } from './submission.js';
export type { FlowFacts, StepBase, StepKind } from './step-kind.js';
export { STEP_KINDS } from './step-list.js';
export { flowStepRules, type FlowSettings } from './step-rules.js';
export {
  runStep,
  STEP_NAMES,
  stepKind,
  StepSchema,
  type ListedKind,
  type Step,
  type StepInput,
  type StepKindName,
  type StepName,
} from './step-table.js';
