import { CappedMap } from '../core/capped-map.js';
import { capCount, DEFAULT_RUN_LIMITS, type CapCount } from '../core/run-limits.js';
import type { ExchangeRecord, JobstormRecord, OutputFacts } from '../core/record.js';
import { JobEvents, type JobOpening } from './job-events.js';
import { bodyJobId, bodyMs, bodyStatus, finalState, streamChunkCount } from './job-body.js';
import { JobSlots, SLOT_CHUNK_SEEN, SLOT_STREAM_READ, SLOT_WARM } from './job-slots.js';

export interface JobFoldOptions {
  /** Jobs followed at once before the oldest is given up on (an `evicted` event). */
  maxTracked?: number;
  /**
   * The run's warm-up (ms from time 0): a job opened by a request intended before it is followed
   * but flagged `warm`, for the consumers that leave the warm-up out.
   */
  warmupMs?: number;
}

export const DEFAULT_MAX_TRACKED_JOBS = DEFAULT_RUN_LIMITS.jobsFollowed;

const OPENING = new Map<string, JobOpening>([
  ['run', 'submit'],
  ['runsync', 'submit'],
  ['retry', 'retry'],
]);
const LOOKUP_OPS = new Set(['status', 'status-sync', 'stream']);

/**
 * The one place where records become job progress: each exchange's job and the state it showed
 * are read, an accepted submission (or a retry of a job not in flight) opens a job, its first
 * stream chunk is timed once, the first final state an accepted answer shows closes it with its
 * timings, a 404 on a lookup closes it as lost, and past the cap the oldest job in flight is given
 * up on. State is kept only for jobs in flight, so memory follows concurrency rather than run
 * length; a closed job is forgotten, so later observations of it fold to nothing but their job and
 * state, and its final timings are given once.
 *
 * `add` returns the same JobEvents object every time: fold a record once and hand the result to
 * every consumer (RunMetrics, LiveExports, the Checker) before folding the next.
 */
export class JobFold {
  readonly warmupMs: number;
  /** Requests intended before this open warm jobs; none without a warm-up (times may be negative). */
  private readonly warmBefore: number;
  private readonly events: JobEvents;
  private readonly inFlight: CappedMap<string, number>;
  private readonly slots = new JobSlots();
  private readonly shards = new ShardNumbers();
  /** The `/stream` output of jobs in flight that streamed some, by slot (LLM jobs only). */
  private readonly outputs = new Map<number, OutputFacts[]>();
  private readonly maxTracked: number;
  /** Jobs given up on for the cap, warm-up ones included. */
  private givenUp = 0;

  constructor(options: JobFoldOptions = {}) {
    this.warmupMs = options.warmupMs ?? 0;
    this.warmBefore = this.warmupMs > 0 ? this.warmupMs : -Infinity;
    this.events = new JobEvents(this.warmupMs);
    this.maxTracked = options.maxTracked ?? DEFAULT_MAX_TRACKED_JOBS;
    this.inFlight = new CappedMap(this.maxTracked, (_, slot) => this.evict(slot));
  }

  /** Jobs open now, warm-up ones included. */
  get open(): number {
    return this.slots.inUse;
  }

  /** The cap on jobs followed at once, when it gave some up (their final state was then never judged). */
  caps(): CapCount[] {
    return capCount('jobs.followed', this.maxTracked, this.givenUp);
  }

  add(record: JobstormRecord): JobEvents {
    const ev = this.events;
    ev.clear();
    if (record.type !== 'exchange') return ev;
    const jobId = record.jobId ?? bodyJobId(record.body);
    if (jobId === undefined) return ev;
    ev.jobId = jobId;
    ev.shown = bodyStatus(record.body);
    const ok =
      record.status !== undefined &&
      record.status >= 200 &&
      record.status < 300 &&
      record.error === undefined;
    const slot = ok ? this.opening(jobId, record) : this.inFlight.get(jobId);
    if (slot === undefined) return ev;
    ev.warm = this.slots.has(slot, SLOT_WARM);
    this.progress(jobId, slot, record, ok);
    return ev;
  }

  /** The job's slot after an accepted answer, which may open (or, after the warm-up, re-open) it. */
  private opening(jobId: string, r: ExchangeRecord): number | undefined {
    const slot = this.inFlight.get(jobId);
    const opening = OPENING.get(r.op);
    if (opening === undefined) return slot;
    const warm = r.intendedAt < this.warmBefore;
    if (slot === undefined) {
      this.events.opened = opening;
      const taken = this.slots.take(r.sentAt, warm ? SLOT_WARM : 0, this.shards.of(r.shard));
      this.inFlight.set(jobId, taken);
      // A cap of 0 gives up on the job at once.
      return this.events.evicted ? this.inFlight.get(jobId) : taken;
    }
    if (warm || !this.slots.has(slot, SLOT_WARM)) return slot;
    // Measured consumers never saw this job open: it starts now, the newest job in flight.
    this.events.opened = opening;
    this.events.reopened = true;
    this.slots.set(slot, r.sentAt, 0);
    this.outputs.delete(slot);
    this.inFlight.delete(jobId);
    this.inFlight.set(jobId, slot);
    return slot;
  }

  private progress(jobId: string, slot: number, r: ExchangeRecord, ok: boolean): void {
    const ev = this.events;
    const openedAt = this.slots.openedAt(slot);
    if (ok && r.op === 'stream' && !this.slots.has(slot, SLOT_CHUNK_SEEN) && streamChunkCount(r.body) > 0) {
      this.slots.mark(slot, SLOT_CHUNK_SEEN);
      ev.firstChunk = true;
      ev.sinceOpenMs = r.endAt - openedAt;
    }
    if (r.op === 'stream') this.slots.mark(slot, SLOT_STREAM_READ);
    if (ok && r.op === 'stream' && r.output !== undefined) this.streamed(slot, r.output);
    if (r.status === 404 && LOOKUP_OPS.has(r.op)) {
      ev.lost = true;
      this.close(jobId, slot);
      return;
    }
    const final = ok ? finalState(ev.shown) : undefined;
    if (final === undefined) return;
    ev.final = final;
    ev.sinceOpenMs = r.endAt - openedAt;
    ev.delayMs = bodyMs(r.body, 'delayTime');
    ev.executionMs = bodyMs(r.body, 'executionTime');
    if (this.slots.has(slot, SLOT_STREAM_READ)) ev.output = { openedAt, parts: this.outputs.get(slot) ?? [] };
    this.close(jobId, slot);
  }

  private streamed(slot: number, output: OutputFacts): void {
    const parts = this.outputs.get(slot);
    if (parts === undefined) this.outputs.set(slot, [output]);
    else parts.push(output);
  }

  private close(jobId: string, slot: number): void {
    this.inFlight.delete(jobId);
    this.outputs.delete(slot);
    this.slots.release(slot);
  }

  private evict(slot: number): void {
    const ev = this.events;
    this.givenUp++;
    ev.evicted = true;
    ev.evictedWarm = this.slots.has(slot, SLOT_WARM);
    ev.evictedShard = this.shards.name(this.slots.shardOf(slot));
    this.outputs.delete(slot);
    this.slots.release(slot);
  }
}

/**
 * Shard labels as small numbers, for a slot to say whose job it holds (the exports count jobs in
 * flight per shard). Number 0 is a record without a label.
 */
class ShardNumbers {
  private readonly names: (string | undefined)[] = [undefined];
  private readonly numbers = new Map<string, number>();
  private last: string | undefined;
  private lastNumber = 0;

  of(shard: string | undefined): number {
    if (shard === this.last) return this.lastNumber;
    let n = shard === undefined ? 0 : this.numbers.get(shard);
    if (n === undefined && shard !== undefined) {
      n = this.names.length < MAX_SHARDS ? this.names.push(shard) - 1 : 0;
      if (n !== 0) this.numbers.set(shard, n);
    }
    this.last = shard;
    this.lastNumber = n ?? 0;
    return this.lastNumber;
  }

  name(n: number): string | undefined {
    return this.names[n];
  }
}

/** What a slot's Uint16 holds. */
const MAX_SHARDS = 65_536;
