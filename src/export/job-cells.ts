import type { JobEvents } from '../fold/job-events.js';
import { FINAL_STATES, type FinalState } from '../metrics/metrics-data.js';
import { BucketHistogram, JOB_BUCKETS_S } from './bucket-histogram.js';

function byState<T>(make: () => T): Record<FinalState, T> {
  return { COMPLETED: make(), FAILED: make(), CANCELLED: make(), TIMED_OUT: make() };
}

/**
 * One shard's job counts, in the buckets the exports send, from the same JobFold events as the
 * report's JobTracker, so the exported counts are the report's. Unlike the report, the exports
 * count the warm-up's jobs too: a live dashboard shows everything that was sent.
 */
export class JobCells {
  submitted = 0;
  lost = 0;
  /** Jobs of this shard the fold has open. */
  open = 0;
  readonly final: Record<FinalState, number> = byState(() => 0);
  readonly delay = new BucketHistogram(JOB_BUCKETS_S);
  readonly execution = new BucketHistogram(JOB_BUCKETS_S);
  readonly duration: Record<FinalState, BucketHistogram> = byState(() => new BucketHistogram(JOB_BUCKETS_S));

  /** What one record of this shard did to its job; a job given up on is its own shard's (`evicted`). */
  add(ev: JobEvents): void {
    // A warm-up job opened again after it was open all along: nothing new here.
    if (ev.opened !== undefined && !ev.reopened) {
      if (ev.opened === 'submit') this.submitted++;
      this.open++;
    }
    if (ev.lost) {
      this.lost++;
      this.open--;
    }
    const state = ev.final;
    if (state === undefined) return;
    this.final[state]++;
    this.duration[state].record(ev.sinceOpenMs / 1000);
    if (ev.delayMs !== undefined) this.delay.record(ev.delayMs / 1000);
    if (ev.executionMs !== undefined) this.execution.record(ev.executionMs / 1000);
    this.open--;
  }

  /** The fold gave up on one of this shard's jobs (its cap). */
  evicted(): void {
    this.open--;
  }

  static readonly states = FINAL_STATES;
}
