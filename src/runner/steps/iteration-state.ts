import type { CallContext, JobResult } from '../../client/client-options.js';
import type { JobStatus } from '../../core/job-status.js';
import { isQueueOperation } from '../../core/operation.js';
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

/**
 * True when the target was found not to serve `op` (route.missing): the request is not sent, and
 * the skip is counted, so a partial server gets one finding instead of a request per iteration.
 */
export function routeMissing(it: IterationState, op: string): boolean {
  if (!it.ctx.routes.isMissing(op)) return false;
  const skipped = it.ctx.counters.skipped;
  skipped[op] = (skipped[op] ?? 0) + 1;
  return true;
}

/**
 * After a 404 from a job route (/cancel, /retry, /stream) that never answered 2xx: one /status of
 * the job, so a job that exists tells a missing route from a missing job (route.missing) instead
 * of leaving every such 404 to look like a lost job.
 */
export async function confirmJob(it: IterationState, op: string, status: number | undefined): Promise<void> {
  const { routes } = it.ctx;
  if (status !== 404 || it.jobId === undefined || routes.isMissing(op) || routes.isMissing('status')) return;
  if (isQueueOperation(op) && routes.hasServed(op)) return;
  it.see(await it.ctx.client.status(it.jobId, {}, it.call('route-check')));
  it.intendedAt = it.ctx.clock.now();
}

/**
 * An answer that will not change by asking again: any 4xx but 429 (throttled) and 404 (the job may
 * not be visible yet, or gone: the caller decides). 405, 400, 401, 403, 422 end a poll at once.
 */
export function permanent(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 404 && status !== 429;
}

/** Any 2xx: the checks judge whether it was the right one; the flow goes on either way. */
export function ok(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}
