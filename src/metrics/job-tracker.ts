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
  /** Jobs a decoded summary said were unfinished; live ones are `inFlight.size`. */
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
  /**
   * Jobs in flight whose first stream chunk was counted. The map above holds a bare number per
   * job (its submit time), not an object: at thousands of jobs in flight that is one heap object
   * and 40 bytes less per job for each mark-compact to trace, and few jobs stream.
   */
  private readonly chunkSeen = new Set<string>();

  constructor(maxTracked: number) {
    this.inFlight = new CappedMap(maxTracked, (id) => {
      this.untracked++;
      this.chunkSeen.delete(id);
    });
  }

  get unfinished(): number {
    return this.unfinishedCarried + this.inFlight.size;
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
    // `sentAt` of the submission (or of the retry that re-opened it), on the run's monotonic clock.
    const submitAt = this.inFlight.get(jobId);
    if (submitAt === undefined) return event;
    if (ok && r.op === 'stream' && !this.chunkSeen.has(jobId) && streamChunkCount(r.body) > 0) {
      this.chunkSeen.add(jobId);
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
    for (const [id, submitAt] of other.inFlight.entries()) {
      if (!this.inFlight.has(id)) this.track(id, submitAt, other.chunkSeen.has(id));
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
    this.inFlight.set(jobId, submitAt);
    // A job leaves the set when it leaves `inFlight` (forget, or the cap), so it is not in it here.
    if (chunkSeen) this.chunkSeen.add(jobId);
  }

  private forget(jobId: string): void {
    this.inFlight.delete(jobId);
    this.chunkSeen.delete(jobId);
  }
}
