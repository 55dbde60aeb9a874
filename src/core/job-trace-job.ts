/*
 * What a job trace says of one job, beyond its arrival time (docs/replay.md, the `jobstorm`
 * format): how it was submitted and what was done to it afterwards. Here in core because the trace
 * readers, the schedule that carries a row to its arrival and the step that replays it all name it.
 */

/** How a job was submitted: /run, /runsync or an OpenAI route. */
export const JOB_TRACE_OPS = ['run', 'runsync', 'openai'] as const;
export type JobTraceOp = (typeof JOB_TRACE_OPS)[number];

/** The calls a job trace replays after a job's submission (purge-queue: for its endpoint). */
export const JOB_ACTION_OPS = ['status', 'stream', 'cancel', 'retry', 'purge-queue'] as const;
export type JobActionOp = (typeof JOB_ACTION_OPS)[number];

/** A call made for a job, `at` ms after it was submitted. */
export interface JobTraceAction {
  readonly at: number;
  readonly op: JobActionOp;
}

/** A row's own policy, milliseconds (as the request sends it). */
export interface TracedPolicy {
  readonly ttl?: number;
  readonly executionTimeout?: number;
  readonly lowPriority?: boolean;
}

/** The job a trace row replays: its submission and its later calls. */
export interface TracedJob {
  readonly op?: JobTraceOp;
  /** Size of the submission's body, bytes. */
  readonly inputBytes?: number;
  /** Fields of the job's input, over the step's own (a fuzzer's row says how its job behaves). */
  readonly input?: Readonly<Record<string, unknown>>;
  /** The job's policy, over the step's own. */
  readonly policy?: TracedPolicy;
  /** Sent with a webhook to the run's own receiver, as `webhook: true` on a step does. */
  readonly webhook?: true;
  readonly actions?: readonly JobTraceAction[];
}

/**
 * The trace row an arrival replays: its sizes (`{{trace.inputTokens}}`, …) and, from a job trace,
 * its job (how it was submitted and what was done to it, replayed by a `traceJob` step).
 */
export interface TraceSizes extends TracedJob {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}
