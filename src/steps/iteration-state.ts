import type { CallContext, JobResult } from '../client/client-options.js';
import type { JobClient } from '../client/job-client.js';
import type { Clock } from '../core/clock.js';
import type { JobStatus } from '../core/job-status.js';
import { isQueueOperation } from '../core/operation.js';
import type { JobstormRecord, RequestFacts } from '../core/record.js';
import type { RouteWatch } from '../core/route-watch.js';
import type { DataRow } from '../scenario/data-feed.js';
import type { CompiledInput, TraceSizes } from '../scenario/input-template.js';

/*
 * What a step's runner sees of the run and of its iteration. The runner's own context and iteration
 * satisfy these interfaces; the steps name only what they use, so they import nothing of the runner.
 */

/** The run, as the steps use it. */
export interface StepContext {
  readonly client: JobClient;
  /** Zero at the run's start. */
  readonly clock: Clock;
  emit(record: JobstormRecord): void;
  nextSeq(): number;
  /** Where and how blast steps send, outside the client (autocannon has its own connections). */
  readonly blastTarget: { readonly baseUrl: string; readonly authorization: string };
  /** URL of the run's webhook receiver, for `webhook: true`. */
  readonly webhookUrl?: string;
  /** The embedded emulator's manual clock, when the run has one. */
  readonly emulator?: { advance(ms: number): Promise<void> };
  readonly shard?: string;
  /** Aborted when arrivals stop for good: steps that wait give up. */
  readonly stop: AbortSignal;
  /** Uniform [0, 1), seeded. */
  random(): number;
  readonly counters: { readonly skipped: Record<string, number> };
  /** The run sends no key: probes that need a good key are skipped. */
  readonly keyless?: boolean;
  /** Routes the target was found not to serve: steps stop sending those operations. */
  readonly routes: RouteWatch;
}

/** The flow, as the steps use it: its name, and each templated step's compiled input. */
export interface StepFlow {
  readonly name: string;
  readonly inputs: ReadonlyMap<object, CompiledInput>;
}

/** What one pass through a flow knows, as the step runners see it. */
/** One message of a chat conversation, as the OpenAI API takes it. */
export interface ChatMessage {
  role: string;
  content: string;
}

export interface IterationState {
  readonly ctx: StepContext;
  readonly flow: StepFlow;
  /** The iteration's number in the run (input templates read it). */
  readonly n: number;
  readonly row: DataRow | undefined;
  /** The trace row this arrival replays (trace phases): its sizes, for `{{trace.*}}`. */
  readonly trace: TraceSizes | undefined;
  /** 1-based index of the step being run (labels records `index:kind`). */
  readonly stepIndex: number;
  jobId: string | undefined;
  status: JobStatus | undefined;
  submittedAt: number | undefined;
  /**
   * The chat so far in this iteration (openai steps with `conversation: true`): each turn's
   * messages and the assistant's answer, sent again before the next turn's messages.
   */
  readonly conversation: ChatMessage[];
  /**
   * The context of one request going out now, with when it was due (the iteration's one reckoning,
   * runner/request-due.ts); `forJob` is false for submits and endpoint-wide calls.
   */
  call(kind: string, req?: RequestFacts, forJob?: boolean): CallContext;
  /** Takes the job state an answer shows. */
  see(r: JobResult): void;
  /**
   * Waits until `at` on the run clock (or not at all if the step got there later): the next request
   * is due at that instant, even if the timer fires late. False when the run stopped meanwhile.
   */
  waitUntil(at: number): Promise<boolean>;
  /** Waits `ms` from when the wait was due to begin; otherwise as `waitUntil`. */
  waitFor(ms: number): Promise<boolean>;
  /** The step did work that is not a request (a blast, a clock move): the next request is due when it ended. */
  worked(): void;
  /** Runs nested steps (a loop's); false ends the iteration. */
  steps(steps: readonly { readonly kind: string }[]): Promise<boolean>;
}

/** Runs one step of a kind; false ends the iteration (a failed submit leaves nothing to poll). */
export type StepRunner<S> = (step: S, it: IterationState) => Promise<boolean>;

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
