import { LIMITS } from '../../contracts/queue/limits.js';
import { REQUESTS_LIST_MAX } from '../../contracts/queue/openai-schemas.js';
import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import type { Clock } from '../core/clock.js';
import { isFinalStatus, type JobStatus } from '../core/job-status.js';
import { ExpiryQueue } from './expiry-queue.js';
import { ExternalPool } from './external/external-pool.js';
import { planJob } from './handler-plan.js';
import { Job } from './job.js';
import { newJobId } from './job-id.js';
import { JobQueue } from './job-queue.js';
import { RecentJobs } from './recent-jobs.js';
import { echoedInput, jobView, sharedInputs, takeStream } from './job-view.js';
import { serializePayload } from './json-payload.js';
import type { EmulatorPolicy } from './policy/policy.js';
import type { HandlerProfile } from './profile.js';
import type { SeededRandom } from '../core/seeded-random.js';
import { EndpointRateLimiter } from './rate-limiter.js';
import type { WebhookScheduler } from './webhooks.js';
import { Autoscaler, type ScalingSettings } from './autoscaler.js';
import type { JobDesk, JobRun, WorkerCounts, WorkerKind } from './worker-kind.js';
import { WorkerPool } from './worker-pool.js';

export interface EndpointSettings extends ScalingSettings {
  id: string;
  /** executionTimeout of jobs whose policy does not set one (REST v1 `executionTimeoutMs`). */
  executionTimeoutMs: number;
  requestsPerWorker: number;
  /** A public model (`/v2/<model>/runsync`), not an endpoint of the account. */
  publicModel: boolean;
  /** Only real workers (the worker protocol) take its jobs: no simulated workers. */
  externalOnly: boolean;
  /** Longest a worker's take or stop long-poll is held. */
  workerHoldMs: number;
  /** A real worker silent this long is dead. */
  workerDeadAfterMs: number;
}

/** What every endpoint shares with the emulator around it. */
export interface EndpointContext {
  /** The clock every timer of the emulator runs on (exceptions in callbacks are caught). */
  timers: Clock;
  /** Emulator time: integer ms since start. */
  now(): number;
  /** The rule decisions, read anew for every request or job (they change when faults do). */
  readonly policy: EmulatorPolicy;
  profile(): HandlerProfile;
  rng: SeededRandom;
  webhooks: WebhookScheduler;
}

/** Called when a job reaches a final state or is deleted (then with `undefined`). */
export type JobWaiter = (job: Job | undefined) => void;

/**
 * One queue-based endpoint: its jobs, FIFO queue, workers, rate limits and health counters, and
 * every state change of SPEC "States and transitions". Time comes only from the context's clock.
 */
export class Endpoint {
  readonly jobs = new Map<string, Job>();
  readonly limiter: EndpointRateLimiter;
  /** Real workers taking jobs through the worker protocol (reference/worker-protocol.md). */
  readonly external: ExternalPool;
  /** Simulated workers; none on an endpoint served only by real workers. */
  private readonly simulated: WorkerPool | undefined;
  /** Every kind of worker that takes this endpoint's jobs. */
  private readonly kinds: readonly WorkerKind[];
  private readonly queue = new JobQueue();
  private readonly expiry: ExpiryQueue;
  private readonly waiters = new Map<Job, Set<JobWaiter>>();
  /** Who wants to know when a worker starts a job (the OpenAI routes stream tokens from then). */
  private readonly starters = new Map<Job, () => void>();
  /** The latest submissions, for GET /requests. */
  private readonly recent = new RecentJobs(REQUESTS_LIST_MAX);
  private queued = 0;
  private queuedNormal = 0;
  private inProgress = 0;
  private completed = 0;
  private failed = 0;
  private retried = 0;

  constructor(
    readonly settings: EndpointSettings,
    private readonly ctx: EndpointContext,
  ) {
    this.limiter = new EndpointRateLimiter(settings.requestsPerWorker);
    this.expiry = new ExpiryQueue(
      ctx.timers,
      () => ctx.now(),
      (job) => this.expire(job),
    );
    const scaler = new Autoscaler(
      settings,
      { normal: () => this.queuedNormal, all: () => this.queued },
      () => ctx.policy,
    );
    const desk = this.desk();
    const external = { holdMs: settings.workerHoldMs, deadAfterMs: settings.workerDeadAfterMs };
    this.external = new ExternalPool(ctx.timers, () => ctx.now(), external, scaler, desk);
    this.simulated = settings.externalOnly
      ? undefined
      : new WorkerPool(ctx.timers, scaler, desk, {
          plan: (job, running) => {
            const plan = planJob(job.input, ctx.profile(), ctx.rng, running);
            plan.durationMs = ctx.policy.runDuration(plan.durationMs);
            return plan;
          },
          jobsPerWorker: () => ctx.profile().llm?.concurrency ?? 1,
          loadMs: () => ctx.profile().llm?.coldStartMs ?? 0,
        });
    this.kinds = this.simulated === undefined ? [this.external] : [this.simulated, this.external];
  }

  get id(): string {
    return this.settings.id;
  }

  /** POST /run and /runsync: the job is queued and a worker may take it at once. */
  submit(body: SubmissionBody, sync: boolean, bodyBytes = 0): Job {
    const now = this.ctx.now();
    const policy = body.policy;
    const job = new Job(
      newJobId(sync),
      body.input,
      body.webhook,
      sync,
      policy?.lowPriority === true,
      policy?.executionTimeout ?? this.settings.executionTimeoutMs,
      now,
      now + (policy?.ttl ?? LIMITS.ttl.default),
    );
    job.inputBytes = bodyBytes;
    this.jobs.set(job.id, job);
    this.recent.push(job);
    this.expiry.update(job);
    this.ctx.policy.submitted(job, this.queue);
    this.enqueue(job);
    return job;
  }

  /** The job, or undefined when unknown or past its deadline (checked here, not only by timer). */
  get(id: string): Job | undefined {
    const job = this.jobs.get(id);
    if (job === undefined) return undefined;
    if (job.expiresAt <= this.ctx.now()) {
      this.expiry.remove(job);
      this.expire(job);
      return job.gone ? undefined : job;
    }
    return job;
  }

  /** GET /status: the view, showing the status this read shows. */
  statusView(job: Job): Record<string, unknown> {
    const policy = this.ctx.policy;
    return jobView(job, policy, policy.shownStatus(job));
  }

  /** GET /stream: the chunks to answer with. */
  takeStream(job: Job): { output: unknown }[] {
    return takeStream(job, this.ctx.policy, this.ctx.now());
  }

  /** /status?ttl=: the job now lives `ttlMs` more, whatever its state. */
  setTtl(job: Job, ttlMs: number): void {
    job.ttlAt = this.ctx.now() + ttlMs;
    job.expiresAt = isFinalStatus(job.status) ? Math.min(job.ttlAt, this.retentionEnd(job)) : job.ttlAt;
    this.expiry.update(job);
  }

  /** POST /cancel: the status to answer. A final job is left alone and answers its own status. */
  cancel(job: Job): JobStatus {
    if (isFinalStatus(job.status)) return job.status;
    if (!this.ctx.policy.honoursCancel(job)) return 'CANCELLED';
    const run = this.stop(job);
    this.finish(job, 'CANCELLED', undefined);
    run?.release();
    return job.status;
  }

  /** POST /retry: false when the job may not be retried. */
  retry(job: Job): boolean {
    if (!this.ctx.policy.retryable(job.status)) return false;
    const now = this.ctx.now();
    job.retries++;
    job.status = 'IN_QUEUE';
    job.error = undefined;
    job.outputBytes = -1;
    job.output = undefined;
    job.chunks = undefined;
    job.durationMs = 0;
    job.llm = undefined;
    job.startedAt = -1;
    job.finishedAt = -1;
    job.streamDelivered = 0;
    job.queuedAt = now;
    job.expiresAt = job.ttlAt;
    this.expiry.update(job);
    this.retried++;
    this.enqueue(job);
    return true;
  }

  /** POST /purge-queue: queued jobs become CANCELLED; running ones keep running. */
  purge(): number {
    const removed = this.queue.drain();
    for (const job of removed) this.finish(job, 'CANCELLED', undefined);
    const policy = this.ctx.policy;
    let count = removed.length;
    if (policy.purgesRunning()) {
      for (const job of [...this.jobs.values()]) {
        if (job.status !== 'IN_PROGRESS') continue;
        const run = this.stop(job);
        this.finish(job, 'CANCELLED', undefined);
        run?.release();
        count++;
      }
    }
    return policy.purgeCount(count);
  }

  /** Calls `waiter` when the job is final or deleted; returns a function that stops waiting. */
  wait(job: Job, waiter: JobWaiter): () => void {
    let set = this.waiters.get(job);
    if (set === undefined) {
      set = new Set();
      this.waiters.set(job, set);
    }
    set.add(waiter);
    return () => {
      const s = this.waiters.get(job);
      if (s === undefined) return;
      s.delete(waiter);
      if (s.size === 0) this.waiters.delete(job);
    };
  }

  /** Every kind of worker together, as /health counts them. */
  private workerCounts(): WorkerCounts {
    const all = { idle: 0, running: 0, initializing: 0 };
    for (let i = 0; i < this.kinds.length; i++) {
      const c = (this.kinds[i] as WorkerKind).counts;
      all.idle += c.idle;
      all.running += c.running;
      all.initializing += c.initializing;
    }
    return all;
  }

  /** Calls `fn` once a worker starts the job (not at all if it ends first); returns a function that stops waiting. */
  onStart(job: Job, fn: () => void): () => void {
    this.starters.set(job, fn);
    return () => {
      if (this.starters.get(job) === fn) this.starters.delete(job);
    };
  }

  /** GET /requests: the latest submissions still retained, newest first. */
  recentRequests(): Record<string, unknown>[] {
    return this.recent.list().map((job) => {
      const view: Record<string, unknown> = { id: job.id, status: job.status, createdAt: job.createdAt };
      if (job.startedAt >= 0) view.startedAt = job.startedAt;
      if (job.finishedAt >= 0) view.finishedAt = job.finishedAt;
      return view;
    });
  }

  health(): Record<string, unknown> {
    const w = this.workerCounts();
    const completed = this.ctx.policy.healthCompleted(this.completed);
    return {
      jobs: {
        completed,
        failed: this.failed,
        inProgress: this.inProgress,
        inQueue: this.queued,
        retried: this.retried,
      },
      workers: { idle: w.idle, initializing: w.initializing, running: w.running, throttled: 0, unhealthy: 0 },
    };
  }

  /** GET /health as one read answers it; the admin API shows `health()`, which counts no read. */
  healthAnswer(): Record<string, unknown> {
    const policy = this.ctx.policy;
    const w = this.workerCounts();
    const completed = policy.countField(
      policy.healthCompletedRead(policy.healthCompleted(this.completed), this),
    );
    const inQueue = policy.healthInQueue(this.queued);
    return {
      jobs: { completed, failed: this.failed, inProgress: this.inProgress, inQueue, retried: this.retried },
      workers: { idle: w.idle, initializing: w.initializing, running: w.running, throttled: 0, unhealthy: 0 },
    };
  }

  /** Workers busy with a job: the dynamic rate limit's "running workers" (as /health reports them). */
  runningWorkers(): number {
    // Every admitted request asks: an indexed loop allocates no iterator.
    let running = 0;
    for (let i = 0; i < this.kinds.length; i++) running += (this.kinds[i] as WorkerKind).counts.running;
    return running;
  }

  snapshot(): Record<string, unknown> {
    return {
      id: this.id,
      settings: this.settings,
      health: this.health(),
      jobsRetained: this.jobs.size,
      waiting: this.waiters.size,
      queueEntries: this.queue.entries,
      workers: this.simulated?.snapshot() ?? [],
      externalWorkers: this.external.snapshot(),
      rateLimits: this.limiter.snapshot(this.ctx.now(), this.runningWorkers()),
    };
  }

  close(): Promise<void> {
    const closed = this.kinds.map((kind) => kind.close());
    this.expiry.close();
    for (const job of this.jobs.values()) job.run?.cancel();
    return Promise.all(closed).then(() => undefined);
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    this.queued++;
    if (!job.lowPriority) this.queuedNormal++;
    for (let i = 0; i < this.kinds.length; i++) (this.kinds[i] as WorkerKind).poke();
  }

  private nextJob(): Job | undefined {
    for (;;) {
      const job = this.queue.shift();
      // A job the service cancels itself is not started; the worker takes the next.
      if (job === undefined || !this.ctx.policy.cancelsAtStart(job)) return job;
      this.finish(job, 'CANCELLED', undefined);
    }
  }

  /** How every kind of worker moves this endpoint's jobs. */
  private desk(): JobDesk {
    return {
      next: () => this.nextJob(),
      begin: (job, worker, run) => this.begin(job, worker, run),
      started: (job) => {
        const started = this.starters.get(job);
        if (started === undefined) return;
        this.starters.delete(job);
        started();
      },
      end: (job, status, error) => {
        job.run = undefined;
        this.finish(job, status, error);
      },
      timeoutOf: (job) => this.ctx.policy.executionLimit(job),
    };
  }

  /** A worker took the job: IN_QUEUE → IN_PROGRESS; its end comes from the worker (or a stop). */
  private begin(job: Job, worker: number | string, run: JobRun): void {
    this.leaveQueue(job);
    this.inProgress++;
    job.status = 'IN_PROGRESS';
    job.startedAt = this.ctx.now();
    job.workerId = typeof worker === 'number' ? worker : 0;
    job.externalWorker = typeof worker === 'string' ? worker : undefined;
    job.output = undefined;
    job.chunks = undefined;
    job.durationMs = 0;
    job.llm = undefined;
    job.run = run;
  }

  /** Stops a running job's handler; returns its run, to release once the job's state is set. */
  private stop(job: Job): JobRun | undefined {
    const run = job.run;
    if (run === undefined) return undefined;
    run.cancel();
    job.run = undefined;
    return run;
  }

  private leaveQueue(job: Job): void {
    this.queued--;
    if (!job.lowPriority) this.queuedNormal--;
  }

  private retentionEnd(job: Job): number {
    return this.ctx.policy.retentionEnd(job);
  }

  private finish(job: Job, status: JobStatus, error: string | undefined): void {
    if (job.status === 'IN_QUEUE') this.leaveQueue(job);
    else if (job.status === 'IN_PROGRESS') this.inProgress--;
    job.status = status;
    job.error = error;
    job.finishedAt = this.ctx.now();
    if (status === 'COMPLETED') this.completed++;
    else if (status === 'FAILED' || status === 'TIMED_OUT') this.failed++;
    job.expiresAt = Math.min(job.ttlAt, this.retentionEnd(job));
    this.expiry.update(job);
    this.notify(job, job);
    const policy = this.ctx.policy;
    if (job.webhook !== undefined && policy.sendsWebhook(job)) {
      const body = serializePayload({
        ...policy.webhookView(job, policy),
        input: echoedInput(job),
        webhook: job.webhook,
      });
      this.ctx.webhooks.deliver(job.id, job.webhook, body);
    }
  }

  /** ttl or retention ran out: the job is deleted whatever its state (SPEC "policy object" rule 2). */
  private expire(job: Job): void {
    if (job.gone) return;
    const now = this.ctx.now();
    const later = this.ctx.policy.ttlExtension(job, now, this.retentionEnd(job));
    if (later > now) {
      job.expiresAt = later;
      this.expiry.update(job);
      return;
    }
    let run: JobRun | undefined;
    if (job.status === 'IN_QUEUE') this.leaveQueue(job);
    else if (job.status === 'IN_PROGRESS') {
      this.inProgress--;
      run = this.stop(job);
    }
    job.gone = true;
    this.jobs.delete(job.id);
    sharedInputs.drop(job.input);
    this.notify(job, undefined);
    run?.release();
  }

  private notify(job: Job, value: Job | undefined): void {
    this.starters.delete(job);
    const set = this.waiters.get(job);
    if (set === undefined) return;
    this.waiters.delete(job);
    for (const w of set) w(value);
  }
}
