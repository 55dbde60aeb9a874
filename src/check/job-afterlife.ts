import { HELD, newJobState, packTime, unpackTime, type JobField, type JobState } from './job-state.js';

/**
 * Folded jobs, kept in brief: what a later observation of the job is judged against (its sequence
 * state, its times, ttl and retention, its final state, the rules already fired for it), packed
 * into one row of numbers per job outside the JavaScript heap.
 *
 * Why packed: a soak run retires hundreds of thousands of jobs, and this store keeps up to
 * `maxAfterlife` (500,000) of them. Kept as the job objects themselves, each was a 25-field object
 * with its boxed times, some 300 bytes and half a dozen heap objects beside its id, all traced and
 * moved by every mark-compact, whose pauses then grew with the run. Here a job costs its id and a
 * map entry on the heap (about 40 bytes, bench/job-book-memory.ts), and its row of 88 bytes in a
 * Float64Array the collector never traces. A job brought back (`take`) or listed (`values`)
 * is a new object made from its row.
 *
 * It remembers the last `cap` jobs retired: the oldest row is written over, and a row taken back
 * leaves a hole until the writing comes round to it.
 */
export class JobAfterlife {
  private rows: Float64Array;
  /** The id of each row, undefined for a free one. */
  private readonly ids: (string | undefined)[] = [];
  private readonly slots = new Map<string, number>();
  /** The row written next, counted from 0; its slot is next % cap. */
  private next = 0;
  /** Jobs written over by newer ones, so no longer known at all. */
  private overwritten = 0;

  constructor(private readonly cap: number) {
    this.rows = new Float64Array(ROW * Math.min(cap, FIRST_ROWS));
  }

  get size(): number {
    return this.slots.size;
  }

  /** How many jobs the store could keep, and how many it forgot for that. */
  get forgotten(): { limit: number; count: number } {
    return { limit: this.cap, count: this.overwritten };
  }

  /** Keeps the job in brief (replacing what was kept of it before). */
  set(job: JobState): void {
    if (this.cap <= 0) {
      this.overwritten++;
      return;
    }
    this.delete(job.id);
    const slot = this.next % this.cap;
    this.next++;
    const evicted = this.ids[slot];
    if (evicted !== undefined) {
      this.slots.delete(evicted);
      this.overwritten++;
    }
    if ((slot + 1) * ROW > this.rows.length) this.grow();
    writeRow(this.rows, slot * ROW, job);
    this.ids[slot] = job.id;
    this.slots.set(job.id, slot);
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** The job as kept, as a new object; it stays kept. */
  get(id: string): JobState | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : readRow(this.rows, slot * ROW, id);
  }

  /** The job as kept, as a new object, and no longer kept. */
  take(id: string): JobState | undefined {
    const job = this.get(id);
    if (job) this.delete(id);
    return job;
  }

  delete(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    this.slots.delete(id);
    this.ids[slot] = undefined;
    return true;
  }

  /** Every job kept, oldest first, each a new object. */
  *values(): Generator<JobState> {
    const used = Math.min(this.next, this.cap);
    for (let k = 0; k < used; k++) {
      const slot = (this.next - used + k) % this.cap;
      const id = this.ids[slot];
      if (id !== undefined) yield readRow(this.rows, slot * ROW, id);
    }
  }

  private grow(): void {
    const rows = new Float64Array(
      ROW * Math.min(this.cap, Math.max(FIRST_ROWS, 2 * (this.rows.length / ROW))),
    );
    rows.set(this.rows);
    this.rows = rows;
  }
}

/** Rows allocated at first; the store doubles from there up to its cap. */
const FIRST_ROWS = 1024;

/**
 * The numbers of a row. Times are NaN when unknown. The last cell is the job's `packed` word as it
 * is (`via`, `last`, `shown` and the flags, laid out in job-state.ts) but for the hold.
 */
const SUBMITTED = 0;
const ACCEPTED = 1;
const TTL = 2;
const TTL_DEADLINE = 3;
const EXECUTION_TIMEOUT = 4;
const FINAL_AT = 5;
const STARTED_BY = 6;
const QUEUED_AT = 7;
const RETRIES = 8;
const FIRED = 9;
const PACKED = 10;
const ROW = 11;

/**
 * What a row keeps of each field of a job, and what it lets go: every key of JobState is here, so a
 * field added to it must be placed (`satisfies`), not silently lost on retirement. What is let go is
 * what the book let go of a retired job before it was packed: evidence, and the hold.
 */
export const AFTERLIFE_FIELDS = {
  id: 'key',
  // The word the 'packed' fields live in (each of them is placed below), kept but for the hold.
  packed: 'word',
  via: 'packed',
  submittedAt: 'row',
  acceptedAt: 'row',
  ttl: 'row',
  ttlDeadline: 'row',
  executionTimeout: 'row',
  webhook: 'packed',
  sequenceBroken: 'packed',
  timeline: 'let go',
  last: 'packed',
  finalAt: 'row',
  finalRecord: 'let go',
  lostCandidate: 'let go',
  startedBy: 'row',
  queuedAt: 'row',
  cancelAnsweredCancelled: 'packed',
  deliveries: 'let go',
  chunkKeys: 'let go',
  streamDrained: 'packed',
  retireAfter: 'let go',
  held: 'let go',
  retries: 'row',
  fired: 'row',
  shown: 'packed',
  cancelAsked: 'packed',
} as const satisfies Record<JobField, 'key' | 'row' | 'word' | 'packed' | 'let go'>;

function writeRow(rows: Float64Array, at: number, job: JobState): void {
  rows[at + SUBMITTED] = packTime(job.submittedAt);
  rows[at + ACCEPTED] = packTime(job.acceptedAt);
  rows[at + TTL] = packTime(job.ttl);
  rows[at + TTL_DEADLINE] = packTime(job.ttlDeadline);
  rows[at + EXECUTION_TIMEOUT] = packTime(job.executionTimeout);
  rows[at + FINAL_AT] = packTime(job.finalAt);
  rows[at + STARTED_BY] = packTime(job.startedBy);
  rows[at + QUEUED_AT] = packTime(job.queuedAt);
  rows[at + RETRIES] = job.retries;
  rows[at + FIRED] = job.fired;
  rows[at + PACKED] = job.packed & ~HELD;
}

function readRow(rows: Float64Array, at: number, id: string): JobState {
  const job = newJobState(id);
  // `| 0`: what a Float64Array gives is a double, and one double written to a field that has only
  // held small integers turns the field into a boxed number in every job made after (V8 widens
  // the field for the whole shape): each job would cost two more heap objects.
  job.packed = (rows[at + PACKED] ?? 0) | 0;
  job.submittedAt = unpackTime(rows[at + SUBMITTED] ?? Number.NaN);
  job.acceptedAt = unpackTime(rows[at + ACCEPTED] ?? Number.NaN);
  job.ttl = unpackTime(rows[at + TTL] ?? Number.NaN);
  job.ttlDeadline = unpackTime(rows[at + TTL_DEADLINE] ?? Number.NaN);
  job.executionTimeout = unpackTime(rows[at + EXECUTION_TIMEOUT] ?? Number.NaN);
  job.finalAt = unpackTime(rows[at + FINAL_AT] ?? Number.NaN);
  job.startedBy = unpackTime(rows[at + STARTED_BY] ?? Number.NaN);
  job.queuedAt = unpackTime(rows[at + QUEUED_AT] ?? Number.NaN);
  job.retries = (rows[at + RETRIES] ?? 0) | 0;
  job.fired = (rows[at + FIRED] ?? 0) | 0;
  return job;
}
