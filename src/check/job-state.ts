import type { JobStatus } from '../core/job-status.js';
import type { ExchangeRecord, WebhookRecord } from '../core/record.js';
import type { SequenceState } from '../../contracts/queue/states.js';
import { EMPTY_TIMELINE, type PackedTimeline } from './job-timeline.js';

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
  /** Which once-per-job rules have fired for it, a bit each (see `firstTime`). */
  fired: number;
}

/** Shared by every job without deliveries; `deliver` never adds to it. */
export const NO_DELIVERIES: Delivery[] = [];

/**
 * A job with every field in place from the start. The book holds thousands of these for seconds,
 * so they survive scavenges and are copied: made from a literal of ten fields and grown by the
 * checks as answers came, each one got an out-of-object property store that was reallocated as it
 * grew. With its whole shape at once V8 keeps every field in the object itself.
 */
export function newJobState(id: string): JobState {
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
    fired: 0,
    shown: undefined,
    cancelAsked: false,
  } satisfies EveryField<JobState>;
}

/** Every key of T, optional ones included: a field added to JobState must be listed here too. */
type EveryField<T> = Record<keyof T, unknown>;

