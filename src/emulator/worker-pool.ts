import type { Clock } from '../core/clock.js';
import type { Autoscaler, Fleet } from './autoscaler.js';
import type { HandlerPlan } from './handler-plan.js';
import type { Job } from './job.js';
import {
  timedOutMessage,
  type JobDesk,
  type JobRun,
  type WorkerCounts,
  type WorkerKind,
} from './worker-kind.js';

export type WorkerState = 'initializing' | 'idle' | 'running';

/** A simulated worker; while it runs a job it is the job's run (no object per job). */
export class SimWorker implements JobRun {
  state: WorkerState = 'initializing';
  job: Job | undefined = undefined;
  cancelIdle: (() => void) | undefined = undefined;
  /** Cancels the timer that ends the running job. */
  cancelEnd: () => void = noop;

  constructor(
    readonly id: number,
    private readonly pool: WorkerPool,
  ) {}

  cancel(): void {
    this.cancelEnd();
    this.cancelEnd = noop;
  }

  release(): void {
    this.pool.release(this);
  }
}

/**
 * The simulated workers of one endpoint. `workersMin` are warm from the start; the autoscaler
 * starts more (after a cold start) and lets idle ones stop. Idle workers are a stack, so the most
 * recently busy one takes the next job and the others can idle out. A worker runs a job as its
 * handler plan says: it ends when the plan's duration or the enforced executionTimeout is up.
 */
export class WorkerPool implements WorkerKind, Fleet {
  private readonly workers = new Map<number, SimWorker>();
  private readonly idle: SimWorker[] = [];
  private initializing = 0;
  private busy = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly scaler: Autoscaler,
    private readonly desk: JobDesk,
    /** The handler's plan for a job a worker starts. */
    private readonly plan: (job: Job) => HandlerPlan,
  ) {
    for (let i = 0; i < scaler.settings.workersMin; i++) {
      const w = this.add();
      w.state = 'idle';
      this.initializing--;
      this.idle.push(w);
    }
  }

  get counts(): WorkerCounts {
    return { idle: this.idle.length, running: this.busy, initializing: this.initializing };
  }

  /** Hands queued jobs to idle workers, then starts workers for what is left. */
  poke(): void {
    if (this.closed) return;
    while (this.idle.length > 0) {
      const job = this.desk.next();
      if (job === undefined) break;
      const w = this.idle.pop() as SimWorker;
      w.cancelIdle?.();
      w.cancelIdle = undefined;
      this.run(w, job);
    }
    this.scaler.scaleUp(this);
  }

  live(): number {
    return this.workers.size;
  }

  coming(): number {
    return this.initializing + this.idle.length;
  }

  startOne(): void {
    const w = this.add();
    this.clock.schedule(this.scaler.settings.coldStartMs, () => {
      if (this.closed) return;
      this.initializing--;
      this.goIdle(w);
      this.poke();
    });
  }

  /** The worker's job ended (or was taken from it): it takes the next one or goes idle. */
  release(w: SimWorker): void {
    if (w.state !== 'running') return;
    w.job = undefined;
    this.busy--;
    if (this.closed) return;
    const job = this.desk.next();
    if (job !== undefined) {
      this.run(w, job);
      return;
    }
    this.goIdle(w);
  }

  snapshot(): { id: number; state: WorkerState; jobId?: string }[] {
    return [...this.workers.values()].map((w) =>
      w.job ? { id: w.id, state: w.state, jobId: w.job.id } : { id: w.id, state: w.state },
    );
  }

  close(): Promise<void> {
    this.closed = true;
    for (const w of this.workers.values()) w.cancelIdle?.();
    return Promise.resolve();
  }

  private add(): SimWorker {
    const w = new SimWorker(this.nextId++, this);
    this.workers.set(w.id, w);
    this.initializing++;
    return w;
  }

  /** IN_QUEUE → IN_PROGRESS, and the handler's end is scheduled. */
  private run(w: SimWorker, job: Job): void {
    w.state = 'running';
    w.job = job;
    this.busy++;
    this.desk.begin(job, w.id, w);
    const plan = this.plan(job);
    job.durationMs = plan.durationMs;
    const limit = this.desk.timeoutOf(job);
    const timesOut = limit !== undefined && limit < plan.durationMs;
    w.cancelEnd = this.clock.schedule(timesOut ? limit : plan.durationMs, () => {
      w.cancelEnd = noop;
      if (job.gone || job.status !== 'IN_PROGRESS' || job.run !== w || w.job !== job) return;
      if (timesOut) this.desk.end(job, 'TIMED_OUT', timedOutMessage(job));
      else if (plan.error !== undefined) this.desk.end(job, 'FAILED', plan.error);
      else {
        job.outputBytes = plan.outputBytes;
        this.desk.end(job, 'COMPLETED', undefined);
      }
      this.release(w);
    });
    this.desk.started(job);
  }

  private goIdle(w: SimWorker): void {
    w.state = 'idle';
    this.idle.push(w);
    if (!this.scaler.mayRetire(this.workers.size)) return;
    w.cancelIdle = this.clock.schedule(this.scaler.settings.idleTimeoutMs, () => {
      w.cancelIdle = undefined;
      if (w.state !== 'idle' || !this.scaler.mayRetire(this.workers.size)) return;
      const at = this.idle.indexOf(w);
      if (at >= 0) this.idle.splice(at, 1);
      this.workers.delete(w.id);
    });
  }
}

const noop = (): void => undefined;
