import type { JobEvents } from '../fold/job-events.js';
import { LatencyHistogram } from './histogram.js';
import { FINAL_STATES, type FinalState, type JobsData } from './metrics-data.js';

function byState<T>(make: (state: FinalState) => T): Record<FinalState, T> {
  return {
    COMPLETED: make('COMPLETED'),
    FAILED: make('FAILED'),
    CANCELLED: make('CANCELLED'),
    TIMED_OUT: make('TIMED_OUT'),
  };
}

/**
 * Job-level metrics, from what JobFold made of each record: only jobs opened outside the warm-up
 * count (a `warm` event is left out), and a job's final timings are counted once because the fold
 * closes a job at its first final state. Jobs live within one shard, so per-job state never needs
 * to cross a merge: the jobs another tracker had in flight join this one's `unfinished`.
 */
export class JobTracker {
  submitted = 0;
  retried = 0;
  lost = 0;
  untracked = 0;
  /** Jobs a decoded summary or a merged tracker had unfinished; this one's own are `open`. */
  private unfinishedCarried = 0;
  readonly byState: Record<FinalState, number> = byState(() => 0);
  readonly delayTime = LatencyHistogram.create();
  readonly executionTime = LatencyHistogram.create();
  readonly firstChunk = LatencyHistogram.create();
  readonly e2e: Record<FinalState, LatencyHistogram> = byState(() => LatencyHistogram.create());
  /** Measured jobs the fold has open. */
  private open = 0;

  get unfinished(): number {
    return this.unfinishedCarried + this.open;
  }

  add(ev: JobEvents): void {
    if (ev.evicted && !ev.evictedWarm) {
      // Given up on for the fold's cap: counted, never silently lost.
      this.untracked++;
      this.open--;
    }
    if (ev.warm) return;
    if (ev.opened !== undefined) {
      if (ev.opened === 'submit') this.submitted++;
      else this.retried++;
      this.open++;
    }
    if (ev.firstChunk) this.firstChunk.recordMs(ev.sinceOpenMs);
    if (ev.lost) {
      this.lost++;
      this.open--;
    }
    const state = ev.final;
    if (state === undefined) return;
    this.byState[state]++;
    this.e2e[state].recordMs(ev.sinceOpenMs);
    if (ev.delayMs !== undefined) this.delayTime.recordMs(ev.delayMs);
    if (ev.executionMs !== undefined) this.executionTime.recordMs(ev.executionMs);
    this.open--;
  }

  merge(other: JobTracker): void {
    this.submitted += other.submitted;
    this.retried += other.retried;
    this.lost += other.lost;
    this.untracked += other.untracked;
    this.unfinishedCarried += other.unfinished;
    for (const s of FINAL_STATES) {
      this.byState[s] += other.byState[s];
      this.e2e[s].merge(other.e2e[s]);
    }
    this.delayTime.merge(other.delayTime);
    this.executionTime.merge(other.executionTime);
    this.firstChunk.merge(other.firstChunk);
  }

  toJSON(): JobsData {
    const e2e = byState((s) => this.e2e[s].encode());
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

  static fromJSON(data: JobsData): JobTracker {
    const t = new JobTracker();
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
}
