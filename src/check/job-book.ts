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

/**
 * Per-job state shared by the checks. Memory stays bounded: a job is folded (handed to each check's
 * `jobDone`, then forgotten) once it is final and `holdMs` of record time has passed, long enough
 * for its webhook and its retries to arrive.
 */
export class JobBook {
  private readonly jobs = new Map<string, JobState>();
  private lastTime = 0;

  constructor(private readonly holdMs: number) {}

  get size(): number {
    return this.jobs.size;
  }

  get(id: string): JobState | undefined {
    return this.jobs.get(id);
  }

  touch(id: string): JobState {
    let job = this.jobs.get(id);
    if (!job) {
      job = { id, webhook: false, observations: [], timeline: [], cancelAnsweredCancelled: false, deliveries: [], streamDrained: false, retries: 0 };
      this.jobs.set(id, job);
    }
    return job;
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
    }
  }

  addTimeline(job: JobState, entry: TimelineEntry): void {
    job.timeline.push(entry);
    if (job.timeline.length > TIMELINE_MAX) job.timeline.splice(1, job.timeline.length - TIMELINE_MAX);
    if (job.observations.length > TIMELINE_MAX * 2) job.observations.splice(0, job.observations.length - TIMELINE_MAX * 2);
  }

  /** Marks the job foldable once record time passes `at`. */
  holdUntilFinal(job: JobState, at: number): void {
    job.foldAfter = at + this.holdMs;
  }

  /** Advances record time and returns the jobs now ready to fold (removed from the book). */
  advance(now: number): JobState[] {
    if (now <= this.lastTime + 1000) return [];
    this.lastTime = now;
    const done: JobState[] = [];
    for (const job of this.jobs.values()) {
      if (job.foldAfter !== undefined && job.foldAfter <= now) done.push(job);
    }
    for (const job of done) this.jobs.delete(job.id);
    return done;
  }

  /** Every job still held, without removing any. */
  drainView(): IterableIterator<JobState> {
    return this.jobs.values();
  }

  /** Everything still held, for the end of the run (in insertion order, so results are stable). */
  drain(): JobState[] {
    const all = [...this.jobs.values()];
    this.jobs.clear();
    return all;
  }
}
