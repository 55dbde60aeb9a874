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

/** What the simulated handler decides, read anew for each job and worker (the profile may change). */
export interface SimHandler {
  /** The handler's plan for a job a worker starts; `running`: the worker's jobs, this one included. */
  plan(job: Job, running: number): HandlerPlan;
  /** Jobs one worker runs at once (1 but for a model-like worker). */
  jobsPerWorker(): number;
  /** Start-up time a new worker needs on top of the endpoint's cold start (a model's load). */
  loadMs(): number;
}

/** A simulated worker. */
export class SimWorker {
  state: WorkerState = 'initializing';
  /** The jobs it runs now. */
  readonly runs = new Set<SimRun>();
  cancelIdle: (() => void) | undefined = undefined;

  constructor(readonly id: number) {}
}

/** One job on a simulated worker: the job's run from its start to its end. */
export class SimRun implements JobRun {
  /** Cancels the timer that ends the job. */
  cancelEnd: () => void = noop;
  released = false;

  constructor(
    readonly worker: SimWorker,
    readonly job: Job,
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
 * handler plan says: it ends when the plan's duration or the enforced executionTimeout is up. A
 * model-like worker runs several jobs at once: a queued job goes to a busy worker with room
 * before an idle one, as a batching server fills its batch.
 */
export class WorkerPool implements WorkerKind, Fleet {
  private readonly workers = new Map<number, SimWorker>();
  private readonly idle: SimWorker[] = [];
  /** Busy workers that had room for another job when last looked at. */
  private readonly roomy = new Set<SimWorker>();
  private initializing = 0;
  private busy = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly scaler: Autoscaler,
    private readonly desk: JobDesk,
    private readonly handler: SimHandler,
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

  /** Hands queued jobs to workers with room, then starts workers for what is left. */
  poke(): void {
    if (this.closed) return;
    for (;;) {
      const w = this.withRoom() ?? this.idle.at(-1);
      if (w === undefined) break;
      const job = this.desk.next();
      if (job === undefined) break;
      if (w.state === 'idle') {
        this.idle.pop();
        w.cancelIdle?.();
        w.cancelIdle = undefined;
      }
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
    this.clock.schedule(this.scaler.settings.coldStartMs + this.handler.loadMs(), () => {
      if (this.closed) return;
      this.initializing--;
      this.goIdle(w);
      this.poke();
    });
  }

  /** A job ended (or was taken from its worker): the worker takes the next one or, with none left, goes idle. */
  release(r: SimRun): void {
    if (r.released) return;
    r.released = true;
    const w = r.worker;
    w.runs.delete(r);
    if (w.runs.size === 0) this.busy--;
    if (this.closed) return;
    const job = w.runs.size < this.handler.jobsPerWorker() ? this.desk.next() : undefined;
    if (job !== undefined) {
      this.run(w, job);
      return;
    }
    if (w.runs.size > 0) {
      this.roomy.add(w);
      return;
    }
    this.roomy.delete(w);
    this.goIdle(w);
  }

  snapshot(): { id: number; state: WorkerState; jobId?: string; jobIds?: string[] }[] {
    return [...this.workers.values()].map((w) => {
      const ids = [...w.runs].map((r) => r.job.id);
      if (ids.length === 0) return { id: w.id, state: w.state };
      return ids.length === 1
        ? { id: w.id, state: w.state, jobId: ids[0] }
        : { id: w.id, state: w.state, jobIds: ids };
    });
  }

  close(): Promise<void> {
    this.closed = true;
    for (const w of this.workers.values()) w.cancelIdle?.();
    return Promise.resolve();
  }

  private add(): SimWorker {
    const w = new SimWorker(this.nextId++);
    this.workers.set(w.id, w);
    this.initializing++;
    return w;
  }

  /** A busy worker that may take one more job, if any (forgetting those that may not). */
  private withRoom(): SimWorker | undefined {
    if (this.roomy.size === 0) return undefined;
    const most = this.handler.jobsPerWorker();
    for (const w of this.roomy) {
      if (w.state === 'running' && w.runs.size < most) return w;
      this.roomy.delete(w);
    }
    return undefined;
  }

  /** IN_QUEUE → IN_PROGRESS, and the handler's end is scheduled. */
  private run(w: SimWorker, job: Job): void {
    if (w.runs.size === 0) {
      w.state = 'running';
      this.busy++;
    }
    const r = new SimRun(w, job, this);
    w.runs.add(r);
    if (w.runs.size < this.handler.jobsPerWorker()) this.roomy.add(w);
    else this.roomy.delete(w);
    this.desk.begin(job, w.id, r);
    const plan = this.handler.plan(job, w.runs.size);
    job.durationMs = plan.durationMs;
    job.llm = plan.llm;
    const limit = this.desk.timeoutOf(job);
    const timesOut = limit !== undefined && limit < plan.durationMs;
    r.cancelEnd = this.clock.schedule(timesOut ? limit : plan.durationMs, () => {
      r.cancelEnd = noop;
      if (job.gone || job.status !== 'IN_PROGRESS' || job.run !== r || r.released) return;
      if (timesOut) this.desk.end(job, 'TIMED_OUT', timedOutMessage(job));
      else if (plan.error !== undefined) this.desk.end(job, 'FAILED', plan.error);
      else {
        job.outputBytes = plan.outputBytes;
        this.desk.end(job, 'COMPLETED', undefined);
      }
      this.release(r);
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
