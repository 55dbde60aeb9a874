import { statusFromNumber, statusNumber, type JobStatus } from '../core/job-status.js';
import type { ExchangeRecord, WebhookRecord } from '../core/record.js';
import type { SequenceState } from '../../contracts/queue/states.js';
import type { TimelineEntry } from '../core/violation.js';
import { appendEntry, EMPTY_TIMELINE, type PackedTimeline } from './job-timeline.js';

/** A webhook delivery as the checks need it. */
export interface Delivery {
  at: number;
  answered: number;
  status?: unknown;
  /** The delivery itself: the evidence a webhook finding cites. */
  record: WebhookRecord;
}

/** Shared by every job without deliveries; `deliver` never adds to it. */
export const NO_DELIVERIES: Delivery[] = [];

/** The small facts of a job that few jobs have: made on the first one set. */
interface RareFacts {
  ttl: number | undefined;
  ttlDeadline: number | undefined;
  executionTimeout: number | undefined;
  lostCandidate: ExchangeRecord | undefined;
  deliveries: Delivery[];
  chunkKeys: Set<string> | undefined;
  retries: number;
}

/*
 * The layout of `JobState.packed`, one small integer (a Smi, never boxed): `via` in bits 0-1,
 * `last` and `shown` as status numbers (job-status.ts) in bits 2-4 and 5-7, the flags from bit 8.
 * The afterlife keeps the word as it is in a retired job's row (job-afterlife.ts).
 */
const VIA: readonly ('run' | 'runsync' | undefined)[] = [undefined, 'run', 'runsync'];
const STATUS_BITS = 3;
const STATUS_MASK = (1 << STATUS_BITS) - 1;
const LAST_SHIFT = 2;
const SHOWN_SHIFT = LAST_SHIFT + STATUS_BITS;
const WEBHOOK = 1 << 8;
const SEQUENCE_BROKEN = 1 << 9;
const CANCEL_ANSWERED_CANCELLED = 1 << 10;
const STREAM_DRAINED = 1 << 11;
const CANCEL_ASKED = 1 << 12;
/** In the book in full: not kept by the afterlife (a job brought back is held afresh). */
export const HELD = 1 << 13;

/** Slots of `JobState.data`: its times, then its packed timeline. */
const SUBMITTED_AT = 0;
const ACCEPTED_AT = 1;
const FINAL_AT = 2;
const STARTED_BY = 3;
const QUEUED_AT = 4;
const FOLD_AFTER = 5;
const TIMES = 6;

/**
 * What we know of one job, kept until it is final and its last checks ran. As a SequenceState it
 * carries where its observed statuses stand in the transition table (see `observe`).
 *
 * Its shape is for the collector. Under load the book holds tens of thousands of these for seconds
 * (a job followed until it is final), and they were most of what each mark-compact traced and
 * moved: as a 26-field object each job was 232 bytes plus a 16-byte heap number for every time set
 * (V8 boxes a double held in a field), its timeline two more, half a dozen heap objects in all.
 * Here the times and the timeline are unboxed doubles in one array, `via`, the statuses and the
 * flags share one small integer, and the facts few jobs have live in `rare`, made on first use:
 * an object of 80 bytes and an array of 96 plus 16 per timeline entry (an array is two heap
 * objects, its header and its elements). Reading and writing go through accessors, so the checks
 * read it as the plain record it describes.
 */
export class JobState implements SequenceState {
  /** `via`, `last`, `shown` and the flags (see the layout above). */
  packed = 0;
  /** Which once-per-job rules have fired for it, a bit each (see `firstTime`). */
  fired = 0;
  /** The exchange that first showed it final: what a finding about its end cites. */
  finalRecord: ExchangeRecord | WebhookRecord | undefined = undefined;
  /**
   * The times by slot, NaN when unknown, then the timeline's pairs (job-timeline.ts). An array
   * literal of doubles keeps them unboxed; it is replaced, not grown, while the timeline is short.
   */
  private data: number[] = [Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  private rare: RareFacts | undefined = undefined;

  constructor(readonly id: string) {}

  /**
   * What we saw and did, in order (statuses with the op that showed them; our actions without),
   * packed: `entriesOf` makes the entries a finding cites. A copy: `append` adds to it.
   */
  get timeline(): PackedTimeline {
    return this.data.length === TIMES ? EMPTY_TIMELINE : this.data.slice(TIMES);
  }
  set timeline(t: PackedTimeline) {
    this.data = this.data.slice(0, TIMES).concat(t);
  }

  /** One more timeline entry (the first and the latest are kept past the cap, see `appendEntry`). */
  append(at: number, op: TimelineEntry['op'], status?: JobStatus): void {
    this.data = appendEntry(this.data, at, op, status, TIMES);
  }

  /** `run` or `runsync`: decides retention. */
  get via(): 'run' | 'runsync' | undefined {
    return VIA[this.packed & 3];
  }
  set via(v: 'run' | 'runsync' | undefined) {
    this.packed = (this.packed & ~3) | VIA.indexOf(v);
  }

  /** The status the latest answer showed (answers taken in record order). */
  get last(): JobStatus | undefined {
    return statusFromNumber((this.packed >> LAST_SHIFT) & STATUS_MASK);
  }
  set last(s: JobStatus | undefined) {
    this.packed = (this.packed & ~(STATUS_MASK << LAST_SHIFT)) | (statusNumber(s) << LAST_SHIFT);
  }

  get shown(): JobStatus | undefined {
    return statusFromNumber((this.packed >> SHOWN_SHIFT) & STATUS_MASK);
  }
  set shown(s: JobStatus | undefined) {
    this.packed = (this.packed & ~(STATUS_MASK << SHOWN_SHIFT)) | (statusNumber(s) << SHOWN_SHIFT);
  }

  get webhook(): boolean {
    return this.flag(WEBHOOK);
  }
  set webhook(on: boolean) {
    this.setFlag(WEBHOOK, on);
  }

  /** Its observed sequence broke the transition table; the fault was reported and judging stopped. */
  get sequenceBroken(): boolean {
    return this.flag(SEQUENCE_BROKEN);
  }
  set sequenceBroken(on: boolean) {
    this.setFlag(SEQUENCE_BROKEN, on);
  }

  get cancelAnsweredCancelled(): boolean {
    return this.flag(CANCEL_ANSWERED_CANCELLED);
  }
  set cancelAnsweredCancelled(on: boolean) {
    this.setFlag(CANCEL_ANSWERED_CANCELLED, on);
  }

  get streamDrained(): boolean {
    return this.flag(STREAM_DRAINED);
  }
  set streamDrained(on: boolean) {
    this.setFlag(STREAM_DRAINED, on);
  }

  /** A cancel or purge of ours came since the last retry (SequenceState). */
  get cancelAsked(): boolean {
    return this.flag(CANCEL_ASKED);
  }
  set cancelAsked(on: boolean) {
    this.setFlag(CANCEL_ASKED, on);
  }

  /** In the book in full (false once retired, kept in brief). */
  get held(): boolean {
    return this.flag(HELD);
  }
  set held(on: boolean) {
    this.setFlag(HELD, on);
  }

  get submittedAt(): number | undefined {
    return this.time(SUBMITTED_AT);
  }
  set submittedAt(at: number | undefined) {
    this.setTime(SUBMITTED_AT, at);
  }

  /** When the service accepted it (end of the submit exchange). */
  get acceptedAt(): number | undefined {
    return this.time(ACCEPTED_AT);
  }
  set acceptedAt(at: number | undefined) {
    this.setTime(ACCEPTED_AT, at);
  }

  /** Earliest time we could have known it was final (send time of the first final observation). */
  get finalAt(): number | undefined {
    return this.time(FINAL_AT);
  }
  set finalAt(at: number | undefined) {
    this.setTime(FINAL_AT, at);
  }

  /** First time we saw it IN_PROGRESS (send time, a lower bound of when it started). */
  get startedBy(): number | undefined {
    return this.time(STARTED_BY);
  }
  set startedBy(at: number | undefined) {
    this.setTime(STARTED_BY, at);
  }

  /** Latest send time at which it was still seen IN_QUEUE (its start is after this). */
  get queuedAt(): number | undefined {
    return this.time(QUEUED_AT);
  }
  set queuedAt(at: number | undefined) {
    this.setTime(QUEUED_AT, at);
  }

  /** Record time after which the book may retire it. */
  get retireAfter(): number | undefined {
    return this.time(FOLD_AFTER);
  }
  set retireAfter(at: number | undefined) {
    this.setTime(FOLD_AFTER, at);
  }

  get ttl(): number | undefined {
    return this.rare?.ttl;
  }
  set ttl(ms: number | undefined) {
    if (ms !== undefined || this.rare) this.facts().ttl = ms;
  }

  /** Set by `/status?ttl=`: a new deadline measured from that request. */
  get ttlDeadline(): number | undefined {
    return this.rare?.ttlDeadline;
  }
  set ttlDeadline(at: number | undefined) {
    if (at !== undefined || this.rare) this.facts().ttlDeadline = at;
  }

  get executionTimeout(): number | undefined {
    return this.rare?.executionTimeout;
  }
  set executionTimeout(ms: number | undefined) {
    if (ms !== undefined || this.rare) this.facts().executionTimeout = ms;
  }

  /** A /status 404 that may mean the job was lost, until a later answer shows the job again. */
  get lostCandidate(): ExchangeRecord | undefined {
    return this.rare?.lostCandidate;
  }
  set lostCandidate(r: ExchangeRecord | undefined) {
    if (r !== undefined || this.rare) this.facts().lostCandidate = r;
  }

  /** Webhook deliveries seen (a shared empty list until the first: most jobs have none). */
  get deliveries(): Delivery[] {
    return this.rare?.deliveries ?? NO_DELIVERIES;
  }
  set deliveries(list: Delivery[]) {
    if (list !== NO_DELIVERIES || this.rare) this.facts().deliveries = list;
  }

  /** Stream chunk identities seen, to find duplicates. */
  get chunkKeys(): Set<string> | undefined {
    return this.rare?.chunkKeys;
  }
  set chunkKeys(keys: Set<string> | undefined) {
    if (keys !== undefined || this.rare) this.facts().chunkKeys = keys;
  }

  get retries(): number {
    return this.rare?.retries ?? 0;
  }
  set retries(n: number) {
    if (n !== 0 || this.rare) this.facts().retries = n;
  }

  private flag(bit: number): boolean {
    return (this.packed & bit) !== 0;
  }

  private setFlag(bit: number, on: boolean): void {
    this.packed = on ? this.packed | bit : this.packed & ~bit;
  }

  private time(slot: number): number | undefined {
    return unpackTime(this.data[slot] ?? Number.NaN);
  }

  private setTime(slot: number, at: number | undefined): void {
    // Never undefined in the array: one would turn it into an array of boxed values.
    this.data[slot] = packTime(at);
  }

  private facts(): RareFacts {
    return (this.rare ??= {
      ttl: undefined,
      ttlDeadline: undefined,
      executionTimeout: undefined,
      lostCandidate: undefined,
      deliveries: NO_DELIVERIES,
      chunkKeys: undefined,
      retries: 0,
    });
  }
}

/** The fields of a job: its keys but its methods. */
export type JobField = {
  [K in keyof JobState]: JobState[K] extends (...args: never[]) => unknown ? never : K;
}[keyof JobState];

export function newJobState(id: string): JobState {
  return new JobState(id);
}

/** A time as a number cell holds it: NaN stands for unknown, as no record time is NaN. */
export function packTime(at: number | undefined): number {
  return at ?? Number.NaN;
}

/** The time a number cell holds, undefined where it holds NaN. */
export function unpackTime(v: number): number | undefined {
  return v === v ? v : undefined;
}
