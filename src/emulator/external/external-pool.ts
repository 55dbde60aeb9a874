import type { Clock } from '../../core/clock.js';
import type { Autoscaler, Fleet } from '../autoscaler.js';
import type { Job } from '../job.js';
import { timedOutMessage, type JobDesk, type WorkerCounts, type WorkerKind } from '../worker-kind.js';
import { ExternalWorker, type ExternalWorkerStats } from './external-worker.js';
import { judgeResult, type ResultVerdict } from './result-body.js';

export interface ExternalSettings {
  /** Longest a take or stop long-poll is held before it is answered 204 (below the worker's 90 s). */
  holdMs: number;
  /** A worker with no request and no open long-poll for this long is dead. */
  deadAfterMs: number;
}

/** Starts and stops real worker processes by id (see process-launcher.ts). */
export interface WorkerLauncher {
  start(workerId: string): void;
  /** SIGTERM, then SIGKILL after a bound; `exited` is called when it is gone. */
  stop(workerId: string): void;
  close(): Promise<void>;
  /** Every process started: worker id, pid and log file. */
  processes(): readonly { workerId: string; pid: number | undefined; log: string }[];
}

export type TakeReply = (jobs: Job[]) => void;
export type StopReply = (jobIds: string[]) => void;

interface TakeWaiter {
  worker: ExternalWorker;
  max: number;
  reply: TakeReply;
  cancelHold: () => void;
  done: boolean;
}

interface StopWaiter {
  /** Answers once: ids to stop, or undefined when the connection went away. */
  finish: (ids: string[] | undefined) => void;
}

export interface ExternalPoolSnapshot {
  workers: ExternalWorkerStats[];
  /** Processes the launcher started (empty when workers are started by the user). */
  processes: { workerId: string; pid: number | undefined; log: string }[];
  lateResults: number;
  rejectedResults: number;
  /** Launching stopped after workers kept exiting before their first request. */
  launchStopped: boolean;
}

export interface ResultAnswer {
  status: number;
  message: string;
}

/** Workers that are gone but stay in the report. */
const DEPARTED_MAX = 1000;
/** Launched workers that exit before their first request, in a row, before launching stops. */
const LAUNCH_FAILURES_MAX = 5;

/**
 * The real workers of one endpoint (reference/worker-protocol.md): takes and stops as long-polls,
 * results, stream chunks, heartbeats, death after `deadAfterMs` of silence, and (with a launcher)
 * worker processes the endpoint's autoscaler starts and stops. They take from the same queue as
 * the simulated workers; every state change goes through the endpoint's JobDesk.
 */
export class ExternalPool implements WorkerKind, Fleet {
  private readonly workers = new Map<string, ExternalWorker>();
  private readonly departed: ExternalWorker[] = [];
  private readonly takers: TakeWaiter[] = [];
  private readonly stopWaiters = new Map<ExternalWorker, StopWaiter[]>();
  private launcher: WorkerLauncher | undefined;
  private readonly launchedIds = new Set<string>();
  private readonly warmWaiters = new Set<() => void>();
  private nextLaunch = 1;
  private launchFailures = 0;
  private cancelSweep: (() => void) | undefined;
  private closed = false;
  /** Every result refused or ignored, whoever sent it. */
  private readonly refused = { late: 0, rejected: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly now: () => number,
    private readonly settings: ExternalSettings,
    private readonly scaler: Autoscaler,
    private readonly desk: JobDesk,
  ) {}

  get counts(): WorkerCounts {
    let idle = 0;
    let running = 0;
    let initializing = 0;
    for (const w of this.workers.values()) {
      const s = w.state;
      // An idle one being stopped is no longer the endpoint's: the autoscaler may already have
      // started its successor, and /health would count both against workersMax.
      if (w.stopping && s === 'idle') continue;
      if (s === 'idle') idle++;
      else if (s === 'running') running++;
      else if (s === 'initializing') initializing++;
    }
    return { idle, running, initializing };
  }

  /** Starts launching worker processes: `workersMin` at once, more on demand. */
  attach(launcher: WorkerLauncher): void {
    this.launcher = launcher;
    for (let i = 0; i < this.scaler.settings.workersMin; i++) this.launch();
    this.armSweep();
  }

  /**
   * Resolves once no launched worker is still starting (each has made its first request or
   * exited), or after `boundMs`: workersMin are warm before the load begins, as simulated ones are.
   */
  whenWarm(boundMs: number): Promise<void> {
    return new Promise((resolve) => {
      let cancelBound = noop;
      const check = (): void => {
        if (this.closed || this.counts.initializing === 0) {
          cancelBound();
          this.warmWaiters.delete(check);
          resolve();
        }
      };
      cancelBound = this.clock.schedule(boundMs, () => {
        this.warmWaiters.delete(check);
        resolve();
      });
      this.warmWaiters.add(check);
      check();
    });
  }

  /** A job-take or job-take-batch long-poll; returns what to call when the connection closes. */
  take(workerId: string, max: number, reply: TakeReply): () => void {
    const worker = this.contact(workerId);
    if (this.closed) {
      reply([]);
      return noop;
    }
    // A worker being stopped gets no job; its take is held like any other (no 204 loop).
    const jobs = worker.stopping ? [] : this.pull(worker, max);
    if (jobs.length > 0) {
      reply(jobs);
      return noop;
    }
    const waiter: TakeWaiter = { worker, max, reply, cancelHold: noop, done: false };
    worker.openPolls++;
    waiter.cancelHold = this.clock.schedule(this.settings.holdMs, () => this.answerTake(waiter, []));
    this.takers.push(waiter);
    this.scaleUp();
    return () => this.answerTake(waiter, undefined);
  }

  /** A job-stop long-poll: answered with the ids to stop, or [] when the hold ends. */
  stopPoll(workerId: string, reply: StopReply): () => void {
    const worker = this.contact(workerId);
    if (worker.pendingStops.length > 0 || this.closed) {
      const ids = worker.pendingStops;
      worker.pendingStops = [];
      reply(ids);
      return noop;
    }
    let cancelHold = noop;
    let done = false;
    const waiter: StopWaiter = {
      finish: (ids) => {
        if (done) return;
        done = true;
        cancelHold();
        worker.openPolls--;
        worker.seen(this.now());
        const l = this.stopWaiters.get(worker);
        const at = l === undefined ? -1 : l.indexOf(waiter);
        if (l !== undefined && at >= 0) l.splice(at, 1);
        if (l?.length === 0) this.stopWaiters.delete(worker);
        if (ids !== undefined) reply(ids);
      },
    };
    worker.openPolls++;
    const list = this.stopWaiters.get(worker) ?? [];
    list.push(waiter);
    this.stopWaiters.set(worker, list);
    cancelHold = this.clock.schedule(this.settings.holdMs, () => waiter.finish([]));
    return () => waiter.finish(undefined);
  }

  /**
   * A heartbeat. The job ids it lists are not trusted to keep a job alive: a killed worker's orphan
   * pinger lists stale ones. They are used for one thing: a job this worker was told to stop and
   * still lists is told again. A stop can reach a worker before the take that gave it the job has
   * (the worker ignores ids it does not know, reference/worker-protocol.md C), and then it would
   * run to its end; a stale id told again costs the worker nothing.
   */
  ping(workerId: string, jobIds: readonly string[] = []): void {
    const worker = this.contact(workerId);
    for (const id of jobIds)
      if (worker.wasStopped(id) && !worker.pendingStops.includes(id)) worker.pendingStops.push(id);
    this.deliverStops(worker);
  }

  /** A job-done post: a result, an error, or a progress update (not final). */
  result(workerId: string, job: Job | undefined, jobId: string, body: unknown): ResultAnswer {
    const owner = this.owner(workerId, job, jobId);
    if (!owner.ok) return owner.answer;
    const { worker, job: running } = owner;
    const verdict: ResultVerdict = judgeResult(body);
    if (verdict.kind === 'invalid') {
      worker.stats.rejectedResults++;
      this.refused.rejected++;
      return { status: 400, message: verdict.message };
    }
    if (verdict.kind === 'progress') {
      running.output = verdict.output;
      worker.stats.progressUpdates++;
      return { status: 200, message: 'progress recorded' };
    }
    this.release(worker, running);
    worker.stats.handlerMs += this.now() - running.startedAt;
    if (verdict.kind === 'error') {
      worker.stats.failed++;
      this.desk.end(running, 'FAILED', verdict.error);
    } else {
      running.output = verdict.output;
      worker.stats.completed++;
      this.desk.end(running, 'COMPLETED', undefined);
    }
    if (verdict.stopPod) worker.stopping = true;
    this.poke();
    return { status: 200, message: 'result recorded' };
  }

  /** A job-stream post: one chunk of a generator's output. */
  streamChunk(workerId: string, job: Job | undefined, jobId: string, body: unknown): ResultAnswer {
    const owner = this.owner(workerId, job, jobId);
    if (!owner.ok) return owner.answer;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || !('output' in body)) {
      owner.worker.stats.rejectedResults++;
      this.refused.rejected++;
      return { status: 400, message: 'a stream post is a JSON object {"output": <chunk>}' };
    }
    const chunks = owner.job.chunks ?? [];
    chunks.push(body.output);
    owner.job.chunks = chunks;
    owner.worker.stats.streamChunks++;
    return { status: 200, message: 'chunk recorded' };
  }

  /** Queued jobs for the takers waiting; more workers when the queue outgrows them. */
  poke(): void {
    if (this.closed) return;
    while (this.takers.length > 0) {
      const waiter = this.takers[0] as TakeWaiter;
      if (waiter.done || waiter.worker.stopping || waiter.worker.gone !== undefined) {
        this.takers.shift();
        if (!waiter.done) this.answerTake(waiter, []);
        continue;
      }
      const jobs = this.pull(waiter.worker, waiter.max);
      if (jobs.length === 0) break;
      this.answerTake(waiter, jobs);
    }
    this.scaleUp();
  }

  /** A launched process ended (on its own, or stopped by us). */
  exited(workerId: string, code: number | null): void {
    const worker = this.workers.get(workerId);
    if (worker === undefined) return;
    worker.stats.exitCode = code;
    if (worker.stats.firstSeenAt < 0 && !worker.stopping) this.launchFailures++;
    this.depart(worker, 'exited', `worker ${workerId} exited (code ${String(code)}) while running the job`);
    for (const check of [...this.warmWaiters]) check();
    this.poke();
  }

  snapshot(): ExternalPoolSnapshot {
    return {
      workers: [...this.departed, ...this.workers.values()].map((w) => w.snapshot()),
      processes: [...(this.launcher?.processes() ?? [])],
      lateResults: this.refused.late,
      rejectedResults: this.refused.rejected,
      launchStopped: this.launchFailures >= LAUNCH_FAILURES_MAX,
    };
  }

  /** Stops every worker process; held long-polls are answered so their workers can exit. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    // answerTake takes each waiter out of the list: walk a copy.
    for (const w of [...this.takers]) this.answerTake(w, []);
    for (const list of [...this.stopWaiters.values()]) for (const s of [...list]) s.finish([]);
    for (const w of this.workers.values()) for (const cancel of w.jobs.values()) cancel();
    await this.launcher?.close();
  }

  // --- internals ---

  /**
   * Any request from a worker: it is alive (a new record when unknown or gone). A process we
   * launched and already let go (stopped, dead, exited) may still speak while it winds down: it
   * gets a record of its own that is never counted and never given a job.
   */
  private contact(workerId: string): ExternalWorker {
    let worker = this.workers.get(workerId);
    const now = this.now();
    if (worker === undefined && this.launchedIds.has(workerId)) {
      const ghost = new ExternalWorker(workerId, now, false);
      ghost.stopping = true;
      return ghost;
    }
    if (worker === undefined) {
      worker = new ExternalWorker(workerId, now, false);
      this.workers.set(workerId, worker);
      this.armSweep();
    }
    const first = worker.stats.firstSeenAt < 0;
    if (first) {
      worker.idleSince = now;
      this.launchFailures = 0;
    }
    worker.seen(now);
    if (first) for (const check of [...this.warmWaiters]) check();
    return worker;
  }

  private owner(
    workerId: string,
    job: Job | undefined,
    jobId: string,
  ): { ok: true; worker: ExternalWorker; job: Job } | { ok: false; answer: ResultAnswer } {
    const worker = this.workers.get(workerId) ?? this.departed.find((w) => w.id === workerId);
    const stoppedHere = (id: string): boolean =>
      [worker, ...this.departed.filter((w) => w.id === workerId)].some((w) => w?.wasStopped(id) === true);
    const refuse = (status: number, message: string, late = false): { ok: false; answer: ResultAnswer } => {
      if (late) {
        this.refused.late++;
        if (worker !== undefined) worker.stats.lateResults++;
      } else {
        this.refused.rejected++;
        if (worker !== undefined) worker.stats.rejectedResults++;
      }
      return { ok: false, answer: { status, message } };
    };
    const shown = JSON.stringify(jobId.slice(0, 200));
    if (job === undefined) return refuse(404, `job ${shown} not found (unknown, expired or deleted)`);
    if (worker !== undefined && worker.gone === undefined) worker.seen(this.now());
    if (worker?.jobs.has(job) === true) return { ok: true, worker, job };
    if (stoppedHere(job.id))
      return refuse(
        409,
        `job ${shown} was stopped (cancel, executionTimeout, ttl or a lost worker); the result is ignored`,
        true,
      );
    if (job.status === 'IN_QUEUE') return refuse(409, `job ${shown} was never taken; it is still IN_QUEUE`);
    if (job.externalWorker === workerId)
      return refuse(409, `job ${shown} is already ${job.status}; a second result is refused`);
    return refuse(409, `job ${shown} is not running on worker ${JSON.stringify(workerId.slice(0, 200))}`);
  }

  private pull(worker: ExternalWorker, max: number): Job[] {
    const jobs: Job[] = [];
    while (jobs.length < max) {
      const job = this.desk.next();
      if (job === undefined) break;
      this.begin(worker, job);
      jobs.push(job);
    }
    return jobs;
  }

  private begin(worker: ExternalWorker, job: Job): void {
    this.desk.begin(job, worker.id, { cancel: () => this.stopJob(worker, job), release: noop });
    const limit = this.desk.timeoutOf(job);
    const cancelTimer =
      limit === undefined
        ? noop
        : this.clock.schedule(limit, () => {
            if (!worker.jobs.has(job)) return;
            this.stopJob(worker, job);
            this.desk.end(job, 'TIMED_OUT', timedOutMessage(job));
            this.poke();
          });
    worker.jobs.set(job, cancelTimer);
    worker.stats.taken++;
    worker.tookFirst(this.now());
  }

  /** The job leaves the worker without a result (cancel, timeout, ttl): the worker is told to stop it. */
  private stopJob(worker: ExternalWorker, job: Job): void {
    if (!worker.jobs.has(job)) return;
    this.release(worker, job);
    worker.rememberStopped(job.id);
    worker.stats.stopsSent++;
    worker.pendingStops.push(job.id);
    this.deliverStops(worker);
  }

  /** Answers the worker's held stop poll, if one is held, with every stop pending. */
  private deliverStops(worker: ExternalWorker): void {
    const waiter = this.stopWaiters.get(worker)?.[0];
    if (waiter === undefined || worker.pendingStops.length === 0) return;
    const ids = worker.pendingStops;
    worker.pendingStops = [];
    waiter.finish(ids);
  }

  private release(worker: ExternalWorker, job: Job): void {
    const cancelTimer = worker.jobs.get(job);
    if (cancelTimer === undefined) return;
    cancelTimer();
    worker.jobs.delete(job);
    if (worker.jobs.size === 0) worker.idleSince = this.now();
  }

  /** Answers a take once: jobs, [] (204), or undefined when the connection went away. */
  private answerTake(waiter: TakeWaiter, jobs: Job[] | undefined): void {
    if (waiter.done) return;
    waiter.done = true;
    waiter.cancelHold();
    waiter.worker.openPolls--;
    waiter.worker.seen(this.now());
    const at = this.takers.indexOf(waiter);
    if (at >= 0) this.takers.splice(at, 1);
    if (jobs !== undefined) waiter.reply(jobs);
  }

  private launch(): void {
    if (this.launcher === undefined || this.closed || this.launchFailures >= LAUNCH_FAILURES_MAX) return;
    const id = `worker-${String(this.nextLaunch++)}`;
    const worker = new ExternalWorker(id, this.now(), true);
    this.workers.set(id, worker);
    this.launchedIds.add(id);
    this.launcher.start(id);
  }

  /** Launched workers scale; workers the user started are the user's. */
  private scaleUp(): void {
    if (this.launcher === undefined || this.closed) return;
    this.scaler.scaleUp(this);
  }

  live(): number {
    let live = 0;
    for (const w of this.workers.values()) if (!w.stopping && w.gone === undefined) live++;
    return live;
  }

  coming(): number {
    let coming = 0;
    for (const w of this.workers.values()) {
      if (w.stopping || w.gone !== undefined) continue;
      const s = w.state;
      if (s === 'initializing') coming++;
      // Idle between two takes: it will take a queued job within a second.
      else if (s === 'idle' && !this.takers.some((t) => t.worker === w)) coming++;
    }
    return coming;
  }

  startOne(): void {
    this.launch();
  }

  private armSweep(): void {
    if (this.cancelSweep !== undefined || this.closed) return;
    const every = Math.max(50, Math.min(1000, Math.floor(this.settings.deadAfterMs / 4)));
    const tick = (): void => {
      this.cancelSweep = undefined;
      if (this.closed) return;
      this.sweep();
      if (this.workers.size > 0 || this.launcher !== undefined)
        this.cancelSweep = this.clock.schedule(every, tick);
    };
    this.cancelSweep = this.clock.schedule(every, tick);
  }

  /** Declares silent workers dead and stops launched workers idle past idleTimeout. */
  private sweep(): void {
    const now = this.now();
    for (const w of [...this.workers.values()]) {
      if (w.openPolls > 0 || w.stats.firstSeenAt < 0) continue;
      if (now - w.stats.lastSeenAt >= this.settings.deadAfterMs) {
        const silent = now - w.stats.lastSeenAt;
        this.depart(
          w,
          'dead',
          `worker ${w.id} was lost: no heartbeat or request for ${String(silent)} ms while it ran the job`,
        );
        if (w.launched) this.launcher?.stop(w.id);
      }
    }
    if (this.launcher !== undefined) this.scaleDown(now);
    this.poke();
  }

  private scaleDown(now: number): void {
    let live = this.live();
    for (const w of this.workers.values()) {
      if (!this.scaler.mayRetire(live)) return;
      if (!w.launched || w.stopping || w.state !== 'idle' || !this.scaler.idledOut(now - w.idleSince))
        continue;
      w.stopping = true;
      live--;
      for (const t of this.takers.filter((t) => t.worker === w)) this.answerTake(t, []);
      this.launcher?.stop(w.id);
    }
  }

  /**
   * A worker is gone (silent past deadAfterMs, or its process exited): the jobs it held become
   * FAILED, not queued again. The transition table allows no IN_PROGRESS → IN_QUEUE, the handler
   * may have had side effects, and a FAILED job can be retried by its client (/retry).
   */
  private depart(worker: ExternalWorker, how: 'dead' | 'exited', message: string): void {
    if (worker.gone !== undefined) return;
    for (const job of [...worker.jobs.keys()]) {
      this.release(worker, job);
      worker.rememberStopped(job.id);
      worker.stats.lostJobs++;
      this.desk.end(job, 'FAILED', message);
    }
    for (const t of this.takers.filter((t) => t.worker === worker)) this.answerTake(t, []);
    for (const s of [...(this.stopWaiters.get(worker) ?? [])]) s.finish([]);
    worker.gone = how;
    this.workers.delete(worker.id);
    this.departed.push(worker);
    if (this.departed.length > DEPARTED_MAX) this.departed.shift();
  }
}

const noop = (): void => undefined;
