import type { JobStatus } from '../core/job-status.js';
import type { LlmRun } from './llm-run.js';

/**
 * What a job holds while a worker runs it; dropped when it ends. The endpoint calls `cancel` when
 * the job leaves its worker without ending there (cancel, ttl, purge), then `release` once the
 * job's new state is set, so that the worker can take the next one.
 */
export interface JobRun {
  cancel(): void;
  release(): void;
}

/**
 * One job. A million of them may be retained at once, so a job is a flat object of numbers and
 * references: no closures, times as integer milliseconds since the emulator started (small
 * integers stay unboxed), the output generated from the input when it is read instead of stored.
 */
export class Job {
  status: JobStatus = 'IN_QUEUE';
  /** Position in the expiry heap, -1 when not in it. */
  heapIndex = -1;
  /** When the job (re)entered the queue; delayTime counts from here. */
  queuedAt: number;
  /** When it was submitted (GET /requests); unlike queuedAt, a retry leaves it alone. */
  readonly createdAt: number;
  startedAt = -1;
  finishedAt = -1;
  /** The ttl deadline: the job is deleted then, whatever its state. */
  ttlAt: number;
  /** When the job goes: the earlier of ttlAt and, once final, the end of retention. */
  expiresAt: number;
  durationMs = 0;
  /** How the model-like worker runs it (tokens and their times), set when a worker starts it. */
  llm: LlmRun | undefined = undefined;
  /** Size of the submission body the input came in (an upper bound of the input's JSON). */
  inputBytes = 0;
  /** Generated output size, -1 to echo the input. */
  outputBytes = -1;
  error: string | undefined = undefined;
  retries = 0;
  /** Stream pieces already handed out by /stream. */
  streamDelivered = 0;
  /** Last worker that ran it (0: none yet). */
  workerId = 0;
  run: JobRun | undefined = undefined;
  /** Id of the external (real) worker that last ran it; its output and stream are what that worker posted. */
  externalWorker: string | undefined = undefined;
  /** An external worker's output: the result, or the latest progress update while IN_PROGRESS. */
  output: unknown = undefined;
  /** Chunks an external worker posted to job-stream. */
  chunks: unknown[] | undefined = undefined;
  /** Deleted (ttl, retention, lost): anything still pointing at it must let go. */
  gone = false;

  constructor(
    readonly id: string,
    readonly input: Record<string, unknown>,
    readonly webhook: string | undefined,
    /** Submitted with /runsync: 1 minute retention instead of 30. */
    readonly sync: boolean,
    readonly lowPriority: boolean,
    readonly executionTimeout: number,
    now: number,
    ttlAt: number,
  ) {
    this.queuedAt = now;
    this.createdAt = now;
    this.ttlAt = ttlAt;
    this.expiresAt = ttlAt;
  }
}
