import type { CallContext, JobResult } from '../../client/client-options.js';
import type { JobStatus } from '../../core/job-status.js';
import type { RequestFacts } from '../../core/record.js';
import type { DataRow, Step } from '../../scenario/scenario.js';
import type { CompiledFlow } from '../compiled-flow.js';
import type { RunContext } from '../run-context.js';

/** What one pass through a flow knows, as the step runners see it. */
export interface IterationState {
  readonly ctx: RunContext;
  readonly flow: CompiledFlow;
  /** The iteration's number in the run (input templates read it). */
  readonly n: number;
  readonly row: DataRow | undefined;
  /** 1-based index of the step being run (labels records `index:kind`). */
  readonly stepIndex: number;
  jobId: string | undefined;
  status: JobStatus | undefined;
  submittedAt: number | undefined;
  /** When the next request was meant to start: the arrival, then each step's own plan. */
  intendedAt: number;
  /** The context of one request; `forJob` is false for submits and endpoint-wide calls. */
  call(kind: string, req?: RequestFacts, forJob?: boolean): CallContext;
  /** Takes the job state an answer shows. */
  see(r: JobResult): void;
  /** Sleeps until `at` on the run clock; false when the run stopped meanwhile. */
  sleepUntil(at: number): Promise<boolean>;
  /** Runs nested steps (a loop's); false ends the iteration. */
  steps(steps: readonly Step[]): Promise<boolean>;
}

/** Runs one step of a kind; false ends the iteration (a failed submit leaves nothing to poll). */
export type StepRunner<S extends Step> = (step: S, it: IterationState) => Promise<boolean>;

/** Any 2xx: the checks judge whether it was the right one; the flow goes on either way. */
export function ok(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}
