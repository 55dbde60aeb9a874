import { isFinalStatus, type JobStatus } from '../core/job-status.js';
import { CappedMap } from '../core/capped-map.js';
import { capCount, type CapCount } from '../core/run-limits.js';
import type { ExchangeRecord } from '../core/record.js';
import type { TimelineEntry } from '../core/violation.js';
import { ACTION_OBSERVATION, STATUS_OBSERVATION, stepObserved } from '../../contracts/queue/states.js';
import { JobAfterlife } from './job-afterlife.js';
import { WebhookOwners } from './webhook-owners.js';
import { NO_DELIVERIES, newJobState, type Delivery, type JobState } from './job-state.js';

export type { Delivery, JobState } from './job-state.js';

export interface JobBookLimits {
  /** Hold after the final state for jobs that asked for a webhook (its retries take 20 s). */
  webhookHoldMs: number;
  /** Hold after the final state for the others (late polls of a finished job). */
  holdMs: number;
  /** Jobs followed in full at once; past that the oldest is retired early. */
  maxJobs: number;
  /** Folded jobs remembered in brief (for ttl, retention and late-state judgments). */
  maxAfterlife: number;
}

/**
 * Per-job state shared by the checks. Memory stays bounded: a job is retired (handed to each check's
 * `jobDone`, then kept only in brief) once it is final and its hold has passed in record time, long
 * enough for its webhook and retries; the brief record keeps ttl, retention and final-state rules
 * judgeable for late observations. Both stores are capped, oldest out first.
 */
export class JobBook {
  private readonly jobs: CappedMap<string, JobState>;
  /** Whose a delivery is when its body names no job. */
  readonly webhookOwners = new WebhookOwners();
  /**
   * Folded jobs, kept in brief (packed rows, see job-afterlife.ts), so a later observation is
   * still judged against ttl, retention, the final state and the rules already fired.
   */
  private readonly afterlife: JobAfterlife;
  /** Final jobs by retire time, in the order they became final (record time almost only grows). */
  private readonly retireAt: number[] = [];
  private readonly retireJobs: JobState[] = [];
  private retireHead = 0;
  /** Jobs pushed out by the cap on jobs held in full, to be retired early. */
  private readonly evicted: JobState[] = [];
  /** How many were, over the run. */
  private retiredEarly = 0;
  /**
   * The last id looked up and its job (undefined: known to be unknown). Every check asks for the
   * job of the record at hand, so most lookups repeat the one before.
   */
  private lastId: string | undefined;
  private lastJob: JobState | undefined;

  constructor(private readonly limits: JobBookLimits) {
    this.jobs = new CappedMap(limits.maxJobs, (_, job) => {
      job.held = false;
      this.retiredEarly++;
      this.evicted.push(job);
    });
    this.afterlife = new JobAfterlife(limits.maxAfterlife);
  }

  get size(): number {
    return this.jobs.size;
  }

  /**
   * The caps that dropped detail: jobs retired early for the cap on jobs held in full (their
   * evidence timeline let go before their hold ended), and jobs forgotten by the store in brief.
   */
  caps(): CapCount[] {
    const brief = this.afterlife.forgotten;
    return [
      ...capCount('checks.held', this.limits.maxJobs, this.retiredEarly),
      ...capCount('checks.brief', brief.limit, brief.count),
    ];
  }

  get(id: string): JobState | undefined {
    if (id === this.lastId) return this.lastJob;
    const job = this.jobs.get(id) ?? this.revive(id);
    this.lastId = id;
    this.lastJob = job;
    return job;
  }

  touch(id: string): JobState {
    let job = this.get(id);
    if (!job) {
      job = newJobState(id);
      this.hold(job);
      this.lastId = id;
      this.lastJob = job;
    }
    return job;
  }

  private hold(job: JobState): void {
    this.lastId = undefined;
    job.held = true;
    this.jobs.set(job.id, job);
  }

  /**
   * A retired job seen again: back in full, as a new object. Only its evidence (timeline, deliveries,
   * records cited) and its hold were let go; its sequence state, times and fired rules judge the
   * new observations as if it had never left.
   */
  private revive(id: string): JobState | undefined {
    const job = this.afterlife.take(id);
    if (!job) return undefined;
    this.hold(job);
    return job;
  }

  /** After its last checks ran: kept in brief (see `afterlife`); the object itself is let go. */
  private remember(job: JobState): void {
    this.lastId = undefined;
    this.afterlife.set(job);
  }

  /** Records a webhook delivery for the job. */
  deliver(job: JobState, delivery: Delivery): void {
    if (job.deliveries === NO_DELIVERIES) job.deliveries = [delivery];
    else job.deliveries.push(delivery);
  }

  /** Records a status the service showed us for the job (as the job fold read it: JobEvents.shown). */
  observe(job: JobState, r: ExchangeRecord, status: JobStatus | undefined): void {
    if (status === undefined) return;
    const at = r.endAt;
    if (!job.sequenceBroken && stepObserved(job, STATUS_OBSERVATION[status])) job.sequenceBroken = true;
    this.addTimeline(job, at, r.op, status);
    const sent = r.sentAt;
    if (status === 'IN_QUEUE') job.queuedAt = Math.max(job.queuedAt ?? 0, sent);
    if (status === 'IN_PROGRESS' && job.startedBy === undefined) job.startedBy = at;
    if (isFinalStatus(status) && job.finalAt === undefined) {
      job.finalAt = sent;
      job.finalRecord = r;
    }
    job.last = status;
  }

  action(job: JobState, r: ExchangeRecord, action: 'cancel' | 'retry' | 'purge'): void {
    if (!job.sequenceBroken && stepObserved(job, ACTION_OBSERVATION[action])) job.sequenceBroken = true;
    this.addTimeline(job, r.sentAt, r.op);
    if (action === 'retry') {
      // A new attempt: its queueing and running are measured afresh.
      job.finalAt = undefined;
      job.finalRecord = undefined;
      job.startedBy = undefined;
      job.queuedAt = r.sentAt;
      job.streamDrained = false;
      // The new attempt streams afresh from chunk 0 (found by the lifecycle fuzzer: a failed
      // streaming job, retried, was reported delivering its chunk 0 twice).
      job.chunkKeys = undefined;
      job.retries++;
      job.retireAfter = undefined;
    }
  }

  addTimeline(job: JobState, at: number, op: TimelineEntry['op'], status?: JobStatus): void {
    job.append(at, op, status);
  }

  /** Marks a final job to retire once record time passes its hold (once per final state). */
  holdUntilFinal(job: JobState, at: number): void {
    if (job.retireAfter !== undefined) return;
    job.retireAfter = at + (job.webhook ? this.limits.webhookHoldMs : this.limits.holdMs);
    this.retireAt.push(job.retireAfter);
    this.retireJobs.push(job);
  }

  /**
   * Advances record time: each job now ready to retire leaves the book, goes through `retire` (its
   * last checks) and is then kept in brief.
   */
  advance(now: number, retire: (job: JobState) => void): void {
    if (this.evicted.length > 0) {
      for (const job of this.evicted.splice(0)) {
        retire(job);
        this.remember(job);
      }
    }
    const at = this.retireAt;
    const jobs = this.retireJobs;
    while (this.retireHead < at.length) {
      const due = at[this.retireHead] ?? Infinity;
      if (due > now) break;
      const job = jobs[this.retireHead];
      this.retireHead++;
      // A retry since (retireAfter reset) or an earlier retirement makes this entry stale.
      if (!job || job.retireAfter !== due || !job.held) continue;
      job.held = false;
      this.jobs.delete(job.id);
      retire(job);
      this.remember(job);
    }
    if (this.retireHead > 4096) {
      at.splice(0, this.retireHead);
      jobs.splice(0, this.retireHead);
      this.retireHead = 0;
    }
  }

  /** Every job still held, without removing any. */
  drainView(): IterableIterator<JobState> {
    return this.jobs.values();
  }

  /**
   * Every job known: those held in full, then those kept in brief (their times stay true; each is
   * made afresh from its row, so changes to it are not kept).
   */
  *known(): Generator<JobState> {
    yield* this.jobs.values();
    yield* this.afterlife.values();
  }

  /** Everything still held, for the end of the run (in insertion order, so results are stable). */
  drain(): JobState[] {
    const all = [...this.evicted.splice(0), ...this.jobs.values()];
    for (const job of all) job.held = false;
    this.jobs.clear();
    this.lastId = undefined;
    return all;
  }
}
