import { CappedMap } from '../core/capped-map.js';
import type { ExchangeRecord } from '../core/record.js';
import { bodyFinalStatus, bodyJobId, bodyMs, streamChunkCount } from './job-body.js';
import { LatencyHistogram } from './histogram.js';
import { FINAL_STATES, type FinalState, type JobsData } from './metrics-data.js';

/** What one record did to the job counts, so the per-second series can follow. */
export interface JobEvent {
  submitted: boolean;
  final?: FinalState;
}

const SUBMIT_OPS = new Set(['run', 'runsync']);
const LOOKUP_OPS = new Set(['status', 'status-sync', 'stream']);

function byState<T>(make: () => T): Record<FinalState, T> {
  return { COMPLETED: make(), FAILED: make(), CANCELLED: make(), TIMED_OUT: make() };
}

/**
 * Job-level metrics. It keeps state only for jobs in flight and forgets a job once it is final, so
 * memory follows concurrency rather than run length; a job's final timings are counted once because
 * later observations of a forgotten job are ignored. Jobs live within one shard, so per-job state
 * never needs to cross a merge.
 */
export class JobTracker {
  submitted = 0;
  retried = 0;
  lost = 0;
  untracked = 0;
  /** Jobs a decoded summary said were unfinished; live ones are those in flight. */
  private unfinishedCarried = 0;
  readonly byState: Record<FinalState, number> = byState(() => 0);
  readonly delayTime = LatencyHistogram.create();
  readonly executionTime = LatencyHistogram.create();
  readonly firstChunk = LatencyHistogram.create();
  readonly e2e: Record<FinalState, LatencyHistogram> = byState(() => LatencyHistogram.create());
  /**
   * A run that submits and never polls would otherwise grow this map for ever: past the cap the
   * oldest job is given up on and counted, never silently lost.
   */
  private readonly inFlight: CappedMap<string, number>;
  /** What the tracker keeps of each job in flight, at the slot the map gives it. */
  private readonly slots = new InFlightSlots();

  constructor(maxTracked: number) {
    this.inFlight = new CappedMap(maxTracked, (_, slot) => {
      this.untracked++;
      this.slots.release(slot);
    });
  }

  get unfinished(): number {
    // One slot per job in flight: counted from the slots, a slot never given back shows here.
    return this.unfinishedCarried + this.slots.inUse;
  }

  add(r: ExchangeRecord): JobEvent {
    const event: JobEvent = { submitted: false };
    const jobId = r.jobId ?? bodyJobId(r.body);
    if (jobId === undefined) return event;
    const ok = r.status !== undefined && r.status >= 200 && r.status < 300 && r.error === undefined;
    if (ok && SUBMIT_OPS.has(r.op) && !this.inFlight.has(jobId)) {
      this.submitted++;
      event.submitted = true;
      this.track(jobId, r.sentAt);
    } else if (ok && r.op === 'retry' && !this.inFlight.has(jobId)) {
      this.retried++;
      this.track(jobId, r.sentAt);
    }
    const slot = this.inFlight.get(jobId);
    if (slot === undefined) return event;
    const submitAt = this.slots.submitAt(slot);
    if (ok && r.op === 'stream' && !this.slots.chunkSeen(slot) && streamChunkCount(r.body) > 0) {
      this.slots.sawChunk(slot);
      this.firstChunk.recordMs(r.endAt - submitAt);
    }
    if (r.status === 404 && LOOKUP_OPS.has(r.op)) {
      this.lost++;
      this.forget(jobId);
      return event;
    }
    const final = ok ? bodyFinalStatus(r.body) : undefined;
    if (final !== undefined) {
      const state = final as FinalState;
      this.byState[state]++;
      this.e2e[state].recordMs(r.endAt - submitAt);
      const delay = bodyMs(r.body, 'delayTime');
      const execution = bodyMs(r.body, 'executionTime');
      if (delay !== undefined) this.delayTime.recordMs(delay);
      if (execution !== undefined) this.executionTime.recordMs(execution);
      this.forget(jobId);
      event.final = state;
    }
    return event;
  }

  merge(other: JobTracker): void {
    this.submitted += other.submitted;
    this.retried += other.retried;
    this.lost += other.lost;
    this.untracked += other.untracked;
    this.unfinishedCarried += other.unfinishedCarried;
    for (const s of FINAL_STATES) {
      this.byState[s] += other.byState[s];
      this.e2e[s].merge(other.e2e[s]);
    }
    this.delayTime.merge(other.delayTime);
    this.executionTime.merge(other.executionTime);
    this.firstChunk.merge(other.firstChunk);
    for (const [id, slot] of other.inFlight.entries()) {
      if (!this.inFlight.has(id)) this.track(id, other.slots.submitAt(slot), other.slots.chunkSeen(slot));
    }
  }

  toJSON(): JobsData {
    const e2e = byState(() => '');
    for (const s of FINAL_STATES) e2e[s] = this.e2e[s].encode();
    return {
      submitted: this.submitted,
      retried: this.retried,
      lost: this.lost,
      unfinished: this.unfinished,
      untracked: this.untracked,
      byState: { ...this.byState },
      delayTime: this.delayTime.encode(),
      executionTime: this.executionTime.encode(),
      firstChunk: this.firstChunk.encode(),
      e2e,
    };
  }

  static fromJSON(data: JobsData, maxTracked: number): JobTracker {
    const t = new JobTracker(maxTracked);
    t.submitted = data.submitted;
    t.retried = data.retried;
    t.lost = data.lost;
    t.untracked = data.untracked;
    t.unfinishedCarried = data.unfinished;
    for (const s of FINAL_STATES) {
      t.byState[s] = data.byState[s];
      t.e2e[s].merge(LatencyHistogram.decode(data.e2e[s]));
    }
    t.delayTime.merge(LatencyHistogram.decode(data.delayTime));
    t.executionTime.merge(LatencyHistogram.decode(data.executionTime));
    t.firstChunk.merge(LatencyHistogram.decode(data.firstChunk));
    return t;
  }

  private track(jobId: string, submitAt: number, chunkSeen = false): void {
    this.inFlight.set(jobId, this.slots.take(submitAt, chunkSeen));
  }

  private forget(jobId: string): void {
    const slot = this.inFlight.get(jobId);
    if (slot === undefined) return;
    this.inFlight.delete(jobId);
    this.slots.release(slot);
  }
}

/**
 * Per job in flight: `sentAt` of its submission (or of the retry that re-opened it, on the run's
 * monotonic clock) and whether its first stream chunk was counted, in typed arrays by slot. The
 * map holds only the slot, a small integer: a time there, or an object holding one, is a heap
 * object per job in flight for every mark-compact to trace, and a run whose jobs stay queued has
 * thousands in flight.
 */
class InFlightSlots {
  private at = new Float64Array(SLOTS_AT_FIRST);
  private chunk = new Uint8Array(SLOTS_AT_FIRST);
  private readonly free: number[] = [];
  private used = 0;

  take(submitAt: number, chunkSeen: boolean): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.used++;
      if (slot >= this.at.length) this.grow();
    }
    this.at[slot] = submitAt;
    this.chunk[slot] = chunkSeen ? 1 : 0;
    return slot;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  get inUse(): number {
    return this.used - this.free.length;
  }

  submitAt(slot: number): number {
    return this.at[slot] ?? Number.NaN;
  }

  chunkSeen(slot: number): boolean {
    return this.chunk[slot] === 1;
  }

  sawChunk(slot: number): void {
    this.chunk[slot] = 1;
  }

  private grow(): void {
    const at = new Float64Array(this.at.length * 2);
    at.set(this.at);
    this.at = at;
    const chunk = new Uint8Array(this.chunk.length * 2);
    chunk.set(this.chunk);
    this.chunk = chunk;
  }
}

const SLOTS_AT_FIRST = 256;
