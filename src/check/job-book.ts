import { isFinalStatus, isJobStatus, type JobStatus } from '../core/job-status.js';
import { CappedMap } from '../core/capped-map.js';
import type { ExchangeRecord, WebhookRecord } from '../core/record.js';
import type { TimelineEntry } from '../core/violation.js';
import { ACTION_OBSERVATION, STATUS_OBSERVATION, stepObserved, type SequenceState } from '../../contracts/queue/states.js';
import { appendEntry, EMPTY_TIMELINE, type PackedTimeline } from './job-timeline.js';

/** A webhook delivery as the checks need it. */
export interface Delivery {
  at: number;
  answered: number;
  status?: unknown;
  /** The delivery itself: the evidence a webhook finding cites. */
  record: WebhookRecord;
}

/**
 * What we know of one job, kept until it is final and its last checks ran. As a SequenceState it
 * carries where its observed statuses stand in the transition table (see `observe`).
 */
export interface JobState extends SequenceState {
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
  /** Its observed sequence broke the transition table; the fault was reported and judging stopped. */
  sequenceBroken: boolean;
  /**
   * What we saw and did, in order (statuses with the op that showed them; our actions without),
   * packed: `entriesOf` makes the entries a finding cites.
   */
  timeline: PackedTimeline;
  /** Last status observed, and when (by response end time). */
  last?: JobStatus;
  /** Earliest time we could have known it was final (send time of the first final observation). */
  finalAt?: number;
  /** The exchange that first showed it final: what a finding about its end cites. */
  finalRecord?: ExchangeRecord | WebhookRecord;
  /** A /status 404 that may mean the job was lost, until a later answer shows the job again. */
  lostCandidate?: ExchangeRecord;
  /** First time we saw it IN_PROGRESS (send time, a lower bound of when it started). */
  startedBy?: number;
  /** Latest send time at which it was still seen IN_QUEUE (its start is after this). */
  queuedAt?: number;
  cancelAnsweredCancelled: boolean;
  /** Webhook deliveries seen (a shared empty list until the first: most jobs have none). */
  deliveries: Delivery[];
  /** Stream chunk identities seen, to find duplicates. */
  chunkKeys?: Set<string>;
  streamDrained: boolean;
  /** Record time after which the book may fold it. */
  foldAfter?: number;
  /** In the book in full (false once folded, kept in brief). */
  held: boolean;
  retries: number;
}

/** Shared by every job without deliveries; `deliver` never adds to it. */
const NO_DELIVERIES: Delivery[] = [];

/**
 * A job with every field in place from the start. The book holds thousands of these for seconds,
 * so they survive scavenges and are copied: made from a literal of ten fields and grown by the
 * checks as answers came, each one got an out-of-object property store that was reallocated as it
 * grew. With its whole shape at once V8 keeps every field in the object itself.
 */
function newJobState(id: string): JobState {
  return {
    id,
    via: undefined,
    submittedAt: undefined,
    acceptedAt: undefined,
    ttl: undefined,
    ttlDeadline: undefined,
    executionTimeout: undefined,
    webhook: false,
    sequenceBroken: false,
    timeline: EMPTY_TIMELINE,
    last: undefined,
    finalAt: undefined,
    finalRecord: undefined,
    lostCandidate: undefined,
    startedBy: undefined,
    queuedAt: undefined,
    cancelAnsweredCancelled: false,
    deliveries: NO_DELIVERIES,
    chunkKeys: undefined,
    streamDrained: false,
    foldAfter: undefined,
    held: false,
    retries: 0,
    shown: undefined,
    cancelAsked: false,
  } satisfies EveryField<JobState>;
}

/** Every key of T, optional ones included: a field added to JobState must be listed here too. */
type EveryField<T> = Record<keyof T, unknown>;

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
  private readonly jobs: CappedMap<string, JobState>;
  /**
   * Folded jobs, kept in brief: the same objects with their timeline and deliveries let go, so a
   * later observation is still judged against ttl, retention and the final state.
   */
  private readonly afterlife: CappedMap<string, JobState>;
  /** Final jobs by fold time, in the order they became final (record time almost only grows). */
  private readonly foldAt: number[] = [];
  private readonly foldJobs: JobState[] = [];
  private foldHead = 0;
  /** Jobs pushed out by the cap on jobs held in full, to be folded early. */
  private readonly evicted: JobState[] = [];
  /**
   * The last id looked up and its job (undefined: known to be unknown). Every check asks for the
   * job of the record at hand, so most lookups repeat the one before.
   */
  private lastId: string | undefined;
  private lastJob: JobState | undefined;

  constructor(private readonly limits: JobBookLimits) {
    this.jobs = new CappedMap(limits.maxJobs, (_, job) => {
      job.held = false;
      this.evicted.push(job);
    });
    this.afterlife = new CappedMap(limits.maxAfterlife);
  }

  get size(): number {
    return this.jobs.size;
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
   * A folded job seen again: back in full. Only its timeline (evidence) and deliveries were let
   * go; its sequence state and times judge the new observations as if it had never left.
   */
  private revive(id: string): JobState | undefined {
    const job = this.afterlife.get(id);
    if (!job) return undefined;
    this.afterlife.delete(id);
    job.timeline = EMPTY_TIMELINE;
    job.deliveries = NO_DELIVERIES;
    job.foldAfter = undefined;
    this.hold(job);
    return job;
  }

  /** After its last checks ran: kept in brief (see `afterlife`). */
  private remember(job: JobState): void {
    this.lastId = undefined;
    job.timeline = EMPTY_TIMELINE;
    job.deliveries = NO_DELIVERIES;
    job.chunkKeys = undefined;
    job.finalRecord = undefined;
    job.lostCandidate = undefined;
    this.afterlife.set(job.id, job);
  }

  /** Records a webhook delivery for the job. */
  deliver(job: JobState, delivery: Delivery): void {
    if (job.deliveries === NO_DELIVERIES) job.deliveries = [delivery];
    else job.deliveries.push(delivery);
  }

  /** Records a status the service showed us for the job. */
  observe(job: JobState, r: ExchangeRecord | WebhookRecord, status: unknown): void {
    if (!isJobStatus(status)) return;
    const at = r.type === 'exchange' ? r.endAt : r.at;
    if (!job.sequenceBroken && stepObserved(job, STATUS_OBSERVATION[status])) job.sequenceBroken = true;
    this.addTimeline(job, at, r.type === 'exchange' ? r.op : 'webhook', status);
    const sent = r.type === 'exchange' ? r.sentAt : r.at;
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
      job.retries++;
      job.foldAfter = undefined;
    }
  }

  addTimeline(job: JobState, at: number, op: TimelineEntry['op'], status?: JobStatus): void {
    job.timeline = appendEntry(job.timeline, at, op, status);
  }

  /** Marks a final job foldable once record time passes its hold (once per final state). */
  holdUntilFinal(job: JobState, at: number): void {
    if (job.foldAfter !== undefined) return;
    job.foldAfter = at + (job.webhook ? this.limits.webhookHoldMs : this.limits.holdMs);
    this.foldAt.push(job.foldAfter);
    this.foldJobs.push(job);
  }

  /**
   * Advances record time: each job now ready to fold leaves the book, goes through `fold` (its
   * last checks) and is then kept in brief.
   */
  advance(now: number, fold: (job: JobState) => void): void {
    if (this.evicted.length > 0) {
      for (const job of this.evicted.splice(0)) {
        fold(job);
        this.remember(job);
      }
    }
    const at = this.foldAt;
    const jobs = this.foldJobs;
    while (this.foldHead < at.length) {
      const due = at[this.foldHead] ?? Infinity;
      if (due > now) break;
      const job = jobs[this.foldHead];
      this.foldHead++;
      // A retry since (foldAfter reset) or an earlier fold makes this entry stale.
      if (!job || job.foldAfter !== due || !job.held) continue;
      job.held = false;
      this.jobs.delete(job.id);
      fold(job);
      this.remember(job);
    }
    if (this.foldHead > 4096) {
      at.splice(0, this.foldHead);
      jobs.splice(0, this.foldHead);
      this.foldHead = 0;
    }
  }

  /** Every job still held, without removing any. */
  drainView(): IterableIterator<JobState> {
    return this.jobs.values();
  }

  /** Every job known: those held in full, then those kept in brief (their times stay true). */
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

