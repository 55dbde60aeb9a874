import type { Clock } from '../core/clock.js';
import type { Job } from './job.js';

export type WorkerState = 'initializing' | 'idle' | 'running';

export class SimWorker {
  state: WorkerState = 'initializing';
  job: Job | undefined = undefined;
  cancelIdle: (() => void) | undefined = undefined;
  constructor(readonly id: number) {}
}

export interface ScalingSettings {
  workersMin: number;
  workersMax: number;
  idleTimeoutMs: number;
  coldStartMs: number;
}

/** What the pool needs from its endpoint. */
export interface WorkSource {
  /** The next queued job, or undefined. */
  nextJob(): Job | undefined;
  /** Queued jobs that count for scaling: all but lowPriority ones (SPEC "policy object"). */
  scalingDemand(): number;
  start(job: Job, worker: SimWorker): void;
}

/**
 * The simulated workers of one endpoint. `workersMin` are warm from the start; more start (after a
 * cold start) while queued jobs outnumber the workers already starting, up to `workersMax`; a
 * worker idle for `idleTimeout` stops while more than `workersMin` remain. Idle workers are a
 * stack, so the most recently busy one takes the next job and the others can idle out.
 */
export class WorkerPool {
  private readonly workers = new Map<number, SimWorker>();
  private readonly idle: SimWorker[] = [];
  private initializing = 0;
  private busy = 0;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly settings: ScalingSettings,
    private readonly source: WorkSource,
  ) {
    for (let i = 0; i < settings.workersMin; i++) {
      const w = this.add();
      w.state = 'idle';
      this.initializing--;
      this.idle.push(w);
    }
  }

  get counts(): { idle: number; running: number; initializing: number } {
    return { idle: this.idle.length, running: this.busy, initializing: this.initializing };
  }

  /** Hands queued jobs to idle workers, then starts workers for what is left. */
  poke(): void {
    if (this.closed) return;
    while (this.idle.length > 0) {
      const job = this.source.nextJob();
      if (job === undefined) break;
      const w = this.idle.pop() as SimWorker;
      w.cancelIdle?.();
      w.cancelIdle = undefined;
      this.run(w, job);
    }
    const want = this.source.scalingDemand() - this.initializing;
    const room = this.settings.workersMax - this.workers.size;
    for (let i = 0; i < Math.min(want, room); i++) this.coldStart();
  }

  /** The worker's job ended (or was taken from it): it takes the next one or goes idle. */
  release(w: SimWorker): void {
    if (w.state !== 'running') return;
    w.job = undefined;
    this.busy--;
    if (this.closed) return;
    const job = this.source.nextJob();
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

  close(): void {
    this.closed = true;
    for (const w of this.workers.values()) w.cancelIdle?.();
  }

  private add(): SimWorker {
    const w = new SimWorker(this.nextId++);
    this.workers.set(w.id, w);
    this.initializing++;
    return w;
  }

  private coldStart(): void {
    const w = this.add();
    this.clock.schedule(this.settings.coldStartMs, () => {
      if (this.closed) return;
      this.initializing--;
      this.goIdle(w);
      this.poke();
    });
  }

  private run(w: SimWorker, job: Job): void {
    w.state = 'running';
    w.job = job;
    this.busy++;
    this.source.start(job, w);
  }

  private goIdle(w: SimWorker): void {
    w.state = 'idle';
    this.idle.push(w);
    if (this.workers.size <= this.settings.workersMin) return;
    w.cancelIdle = this.clock.schedule(this.settings.idleTimeoutMs, () => {
      w.cancelIdle = undefined;
      if (w.state !== 'idle' || this.workers.size <= this.settings.workersMin) return;
      const at = this.idle.indexOf(w);
      if (at >= 0) this.idle.splice(at, 1);
      this.workers.delete(w.id);
    });
  }
}
