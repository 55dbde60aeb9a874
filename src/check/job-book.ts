import { isFinalStatus, isJobStatus, type JobStatus } from '../core/job-status.js';
import type { ExchangeRecord, WebhookRecord } from '../core/record.js';
import type { TimelineEntry } from '../core/violation.js';
import type { Observation } from '../../contracts/queue/states.js';

/** A webhook delivery as the checks need it. */
export interface Delivery {
  at: number;
  answered: number;
  status?: unknown;
}

/** What we know of one job, kept until it is final and its last checks ran. */
export interface JobState {
  id: string;
  /** `run` or `runsync`: decides retention. */
  via?: 'run' | 'runsync';
  submittedAt?: number;
  /** When the service accepted it (end of the submit exchange). */
  acceptedAt?: number;
  ttl?: number;
  /** Set by `/status?ttl=`: a new deadline measured from that request. */
  ttlDeadline?: number;
  executionTimeout?: number;
  webhook: boolean;
  observations: Observation[];
  timeline: TimelineEntry[];
  /** Last status observed, and when (by response end time). */
  last?: JobStatus;
  /** Earliest time we could have known it was final (send time of the first final observation). */
  finalAt?: number;
  /** First time we saw it IN_PROGRESS (send time, a lower bound of when it started). */
  startedBy?: number;
  /** Latest send time at which it was still seen IN_QUEUE (its start is after this). */
  queuedAt?: number;
  cancelAnsweredCancelled: boolean;
  deliveries: Delivery[];
  /** Stream chunk identities seen, to find duplicates. */
  chunkKeys?: Set<string>;
  streamDrained: boolean;
  /** Record time after which the book may fold it. */
  foldAfter?: number;
  retries: number;
}

const TIMELINE_MAX = 64;

/** What is kept of a folded job, so a later observation is still judged against its history. */
type Afterlife = Pick<JobState, 'id' | 'via' | 'submittedAt' | 'acceptedAt' | 'ttl' | 'ttlDeadline' | 'executionTimeout' | 'webhook' | 'last' | 'finalAt' | 'retries' | 'cancelAnsweredCancelled' | 'streamDrained'>;

export interface JobBookLimits {
  /** Hold after the final state for jobs that asked for a webhook (its retries take 20 s). */
  webhookHoldMs: number;
  /** Hold after the final state for the others (late polls of a finished job). */
  holdMs: number;
  /** Jobs followed in full at once; past that the oldest is folded early. */
  maxJobs: number;
  /** Folded jobs remembered in brief (for ttl, retention and late-state judgments). */
  maxAfterlife: number;
}

/**
 * Per-job state shared by the checks. Memory stays bounded: a job is folded (handed to each check's
 * `jobDone`, then kept only in brief) once it is final and its hold has passed in record time, long
 * enough for its webhook and retries; the brief record keeps ttl, retention and final-state rules
 * judgeable for late observations. Both stores are capped, oldest out first.
 */
export class JobBook {
  private readonly jobs = new Map<string, JobState>();
  private readonly afterlife = new Map<string, Afterlife>();
  /** Final jobs by fold time, in the order they became final (record time almost only grows). */
  private readonly foldQueue: { at: number; job: JobState }[] = [];
  private foldHead = 0;
  private readonly evicted: JobState[] = [];

  constructor(private readonly limits: JobBookLimits) {}

  get size(): number {
    return this.jobs.size;
  }

  get(id: string): JobState | undefined {
    return this.jobs.get(id) ?? this.revive(id);
  }

  touch(id: string): JobState {
    let job = this.get(id);
    if (!job) {
      job = { id, webhook: false, observations: [], timeline: [], cancelAnsweredCancelled: false, deliveries: [], streamDrained: false, retries: 0 };
      this.add(job);
    }
    return job;
  }

  private add(job: JobState): void {
    this.jobs.set(job.id, job);
    if (this.jobs.size > this.limits.maxJobs) {
      const oldest = this.jobs.values().next().value;
      if (oldest) {
        this.jobs.delete(oldest.id);
        this.remember(oldest);
        this.evicted.push(oldest);
      }
    }
  }

  /** A folded job seen again: back in full, with its last state as its only observation. */
  private revive(id: string): JobState | undefined {
    const brief = this.afterlife.get(id);
    if (!brief) return undefined;
    this.afterlife.delete(id);
    const job: JobState = { ...brief, observations: brief.last ? [{ kind: 'status', status: brief.last }] : [], timeline: [], deliveries: [] };
    this.add(job);
    return job;
  }

  private remember(job: JobState): void {
    const { id, via, submittedAt, acceptedAt, ttl, ttlDeadline, executionTimeout, webhook, last, finalAt, retries, cancelAnsweredCancelled, streamDrained } = job;
    this.afterlife.set(id, { id, via, submittedAt, acceptedAt, ttl, ttlDeadline, executionTimeout, webhook, last, finalAt, retries, cancelAnsweredCancelled, streamDrained });
    if (this.afterlife.size > this.limits.maxAfterlife) {
      const oldest = this.afterlife.keys().next().value;
      if (oldest !== undefined) this.afterlife.delete(oldest);
    }
  }

  /** Records a status the service showed us for the job. */
  observe(job: JobState, r: ExchangeRecord | WebhookRecord, status: unknown): void {
    if (!isJobStatus(status)) return;
    const at = r.type === 'exchange' ? r.endAt : r.at;
    job.observations.push({ kind: 'status', status });
    this.addTimeline(job, { at, op: r.type === 'exchange' ? r.op : 'webhook', status });
    const sent = r.type === 'exchange' ? r.sentAt : r.at;
    if (status === 'IN_QUEUE') job.queuedAt = Math.max(job.queuedAt ?? 0, sent);
    if (status === 'IN_PROGRESS' && job.startedBy === undefined) job.startedBy = at;
    if (isFinalStatus(status) && job.finalAt === undefined) job.finalAt = sent;
    job.last = status;
  }

  action(job: JobState, r: ExchangeRecord, action: 'cancel' | 'retry' | 'purge'): void {
    job.observations.push({ kind: 'action', action });
    this.addTimeline(job, { at: r.sentAt, op: r.op });
    if (action === 'retry') {
      // A new attempt: its queueing and running are measured afresh.
      job.finalAt = undefined;
      job.startedBy = undefined;
      job.queuedAt = r.sentAt;
      job.streamDrained = false;
      job.retries++;
      job.foldAfter = undefined;
    }
  }

  addTimeline(job: JobState, entry: TimelineEntry): void {
    job.timeline.push(entry);
    if (job.timeline.length > TIMELINE_MAX) job.timeline.splice(1, job.timeline.length - TIMELINE_MAX);
    if (job.observations.length > TIMELINE_MAX * 2) job.observations.splice(0, job.observations.length - TIMELINE_MAX * 2);
  }

  /** Marks a final job foldable once record time passes its hold (once per final state). */
  holdUntilFinal(job: JobState, at: number): void {
    if (job.foldAfter !== undefined) return;
    job.foldAfter = at + (job.webhook ? this.limits.webhookHoldMs : this.limits.holdMs);
    this.foldQueue.push({ at: job.foldAfter, job });
  }

  /** Advances record time and returns the jobs now ready to fold (removed from the book). */
  advance(now: number): JobState[] {
    const done = this.evicted.splice(0);
    const q = this.foldQueue;
    while (this.foldHead < q.length) {
      const head = q[this.foldHead];
      if (!head || head.at > now) break;
      this.foldHead++;
      const { job } = head;
      // A retry since (foldAfter reset) or an earlier fold makes this entry stale.
      if (job.foldAfter !== head.at || this.jobs.get(job.id) !== job) continue;
      this.jobs.delete(job.id);
      this.remember(job);
      done.push(job);
    }
    if (this.foldHead > 4096) {
      q.splice(0, this.foldHead);
      this.foldHead = 0;
    }
    return done;
  }

  /** Every job still held, without removing any. */
  drainView(): IterableIterator<JobState> {
    return this.jobs.values();
  }

  /** Everything still held, for the end of the run (in insertion order, so results are stable). */
  drain(): JobState[] {
    const all = [...this.evicted.splice(0), ...this.jobs.values()];
    this.jobs.clear();
    return all;
  }
}
