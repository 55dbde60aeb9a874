import { CappedMap } from '../core/capped-map.js';
import type { ExchangeRecord } from '../core/record.js';
import { bodyFinalStatus, bodyJobId, bodyMs } from '../metrics/job-body.js';
import { FINAL_STATES, type FinalState } from '../metrics/metrics-data.js';
import { BucketHistogram, JOB_BUCKETS_S } from './bucket-histogram.js';

const SUBMIT_OPS = new Set<string>(['run', 'runsync']);
const LOOKUP_OPS = new Set<string>(['status', 'status-sync', 'stream']);

function byState<T>(make: () => T): Record<FinalState, T> {
  return { COMPLETED: make(), FAILED: make(), CANCELLED: make(), TIMED_OUT: make() };
}

/**
 * One shard's job counts, in the buckets the exports send. It follows jobs the way the report's
 * JobTracker does (submit or retry opens a job, the first final status or a 404 closes it), so the
 * exported counts equal the report's; it keeps only the submit time of jobs in flight.
 */
export class JobCells {
  submitted = 0;
  lost = 0;
  readonly final: Record<FinalState, number> = byState(() => 0);
  readonly delay = new BucketHistogram(JOB_BUCKETS_S);
  readonly execution = new BucketHistogram(JOB_BUCKETS_S);
  readonly duration: Record<FinalState, BucketHistogram> = byState(() => new BucketHistogram(JOB_BUCKETS_S));
  private readonly inFlight: CappedMap<string, number>;

  constructor(maxTracked: number) {
    this.inFlight = new CappedMap(maxTracked);
  }

  get open(): number {
    return this.inFlight.size;
  }

  add(r: ExchangeRecord): void {
    const jobId = r.jobId ?? bodyJobId(r.body);
    if (jobId === undefined) return;
    const ok = r.status !== undefined && r.status >= 200 && r.status < 300 && r.error === undefined;
    if (ok && !this.inFlight.has(jobId)) {
      if (SUBMIT_OPS.has(r.op)) {
        this.submitted++;
        this.inFlight.set(jobId, r.sentAt);
      } else if (r.op === 'retry') {
        this.inFlight.set(jobId, r.sentAt);
      }
    }
    const submitAt = this.inFlight.get(jobId);
    if (submitAt === undefined) return;
    if (r.status === 404 && LOOKUP_OPS.has(r.op)) {
      this.lost++;
      this.inFlight.delete(jobId);
      return;
    }
    const state = ok ? (bodyFinalStatus(r.body) as FinalState | undefined) : undefined;
    if (state === undefined) return;
    this.final[state]++;
    this.duration[state].record((r.endAt - submitAt) / 1000);
    const delay = bodyMs(r.body, 'delayTime');
    const execution = bodyMs(r.body, 'executionTime');
    if (delay !== undefined) this.delay.record(delay / 1000);
    if (execution !== undefined) this.execution.record(execution / 1000);
    this.inFlight.delete(jobId);
  }

  static readonly states = FINAL_STATES;
}
