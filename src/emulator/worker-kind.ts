import type { JobStatus } from '../core/job-status.js';
import type { Job, JobRun } from './job.js';

export type { JobRun } from './job.js';

export interface WorkerCounts {
  idle: number;
  running: number;
  initializing: number;
}

/** What every kind of worker needs from its endpoint: the queue and the job's state changes. */
export interface JobDesk {
  /** The next queued job, or undefined. */
  next(): Job | undefined;
  /** IN_QUEUE → IN_PROGRESS on worker `worker` (a simulated worker's number, a real worker's id). */
  begin(job: Job, worker: number | string, run: JobRun): void;
  /** The handler's duration is known: who times a stream by it may start. */
  started(job: Job): void;
  /** A running job ends with this status. */
  end(job: Job, status: JobStatus, error: string | undefined): void;
  /** The job's executionTimeout as enforced (ms), undefined when it is not enforced. */
  timeoutOf(job: Job): number | undefined;
}

/** One kind of worker serving an endpoint's queue (simulated, or real processes); the endpoint talks to each through this. */
export interface WorkerKind {
  readonly counts: WorkerCounts;
  /** Jobs were queued: hand them to free workers, and scale. */
  poke(): void;
  snapshot(): unknown;
  /** Stops its workers; resolves when every process it started is gone. */
  close(): Promise<void>;
}

export function timedOutMessage(job: Job): string {
  return `job ran past its executionTimeout of ${String(job.executionTimeout)} ms`;
}
