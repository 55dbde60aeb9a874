import { LIMITS } from '../../contracts/queue/limits.js';
import { TRANSITIONS, type Mover, type Transition } from '../../contracts/queue/states.js';
import { isFinalStatus, isJobStatus, type JobStatus } from '../core/job-status.js';
import type { ExchangeRecord, JobstormRecord } from '../core/record.js';

/*
 * What a fuzz tried, as the state machine's edges (contracts/queue/states.ts): each change of a
 * job's status that the records show, with what moved it (our submit, cancel, retry or purge, or
 * the service on its own), counted against the transition table. A status the poller saw change
 * by more than one edge (IN_QUEUE to COMPLETED between two reads) is counted as the jump it was;
 * a change the table has no row for is counted apart (a check judges it). An aggregate: `add`
 * each record, `merge` trials.
 */

type From = JobStatus | 'none';
type To = JobStatus | 'deleted' | 'results-gone';

interface JobTrack {
  last: From;
  /** How it was submitted: its results are kept 1 minute after /runsync, 30 after /run. */
  op: 'run' | 'runsync';
  /** Our cancel or purge went out since the last retry: a CANCELLED seen next is theirs. */
  asked?: 'cancel' | 'purge';
  ttl?: number;
  submittedAt: number;
}

/** One observed edge: `from` to `to`, moved by `by`. */
export interface EdgeCount {
  from: From;
  by: Mover;
  to: To;
  count: number;
}

export interface EdgeTable {
  /** Every row of the transition table, with how often it was seen (0: not reached). */
  table: (Transition & { count: number })[];
  /** Seen, but as a jump over several rows (a poller may skip states). */
  jumps: EdgeCount[];
  /** Seen, but in no row of the table (each one a check's business). */
  outside: EdgeCount[];
  /** Calls made, by operation and answer: `status 200`, `cancel 404`, `run failed` (no answer). */
  calls: Record<string, number>;
}

const keyOf = (from: From, by: Mover, to: To): string => `${from}|${by}|${to}`;

function matches(t: Transition, from: From, by: Mover, to: To): boolean {
  if (t.by !== by || t.to !== to) return false;
  if (t.from === 'any') return true;
  if (t.from === 'any-final') return from !== 'none' && isFinalStatus(from);
  return t.from === from;
}

export class EdgeCoverage {
  private readonly edges = new Map<string, EdgeCount>();
  private readonly calls = new Map<string, number>();
  private readonly jobs = new Map<string, JobTrack>();

  add(r: JobstormRecord): void {
    if (r.type !== 'exchange') return;
    const answer = r.status === undefined ? 'failed' : String(r.status);
    const call = `${r.op} ${answer}`;
    this.calls.set(call, (this.calls.get(call) ?? 0) + 1);
    if (r.op === 'purge-queue' && r.status === 200) {
      for (const job of this.jobs.values()) if (job.last === 'none' || !isFinalStatus(job.last)) job.asked = 'purge';
      return;
    }
    if (r.jobId === undefined) return;
    if (r.status === 404) this.gone(r, r.jobId);
    if (r.status === 200) this.answered(r, r.jobId);
  }

  private answered(r: ExchangeRecord, id: string): void {
    const shown = (r.body as { status?: unknown } | undefined)?.status;
    const status = isJobStatus(shown) ? shown : undefined;
    let job = this.jobs.get(id);
    if (!job) {
      if (r.op !== 'run' && r.op !== 'runsync') return;
      job = { last: 'none', op: r.op, submittedAt: r.sentAt, ...(r.req?.ttl === undefined ? {} : { ttl: r.req.ttl }) };
      this.jobs.set(id, job);
      if (status) this.move(job, r.op, status);
      return;
    }
    if (r.op === 'retry') {
      if (job.last !== 'none') this.count(job.last, 'retry', 'IN_QUEUE');
      job.last = 'IN_QUEUE';
      job.asked = undefined;
      return;
    }
    if (r.op === 'cancel') job.asked = 'cancel';
    if (status && status !== job.last) this.move(job, this.moverOf(job, status), status);
  }

  private moverOf(job: JobTrack, to: JobStatus): Mover {
    return to === 'CANCELLED' && job.asked !== undefined ? job.asked : 'server';
  }

  private move(job: JobTrack, by: Mover, to: JobStatus): void {
    this.count(job.last, by, to);
    job.last = to;
  }

  /**
   * A 404 for a job we followed: deleted by its ttl when that had passed, its results gone when
   * it was final past its retention (counted from its submission: a lower bound), else deleted
   * by whatever did it (a check judges that).
   */
  private gone(r: ExchangeRecord, id: string): void {
    const job = this.jobs.get(id);
    if (!job || job.last === 'none') return;
    const age = r.sentAt - job.submittedAt;
    const retention = job.op === 'runsync' ? LIMITS.retentionRunsync : LIMITS.retentionRun;
    if (job.ttl !== undefined && age >= job.ttl) this.count(job.last, 'ttl-expiry', 'deleted');
    // Past retention the job may have ended unseen since we last read it (a /runsync answered
    // IN_QUEUE at the end of its wait): its results went, a jump if we never saw it final.
    else if (age >= retention) this.count(job.last, 'retention-expiry', 'results-gone');
    else this.count(job.last, 'server', 'deleted');
    this.jobs.delete(id);
  }

  private count(from: From, by: Mover, to: To): void {
    const key = keyOf(from, by, to);
    const e = this.edges.get(key);
    if (e) e.count++;
    else this.edges.set(key, { from, by, to, count: 1 });
  }

  merge(other: EdgeCoverage): void {
    for (const e of other.edges.values()) {
      const mine = this.edges.get(keyOf(e.from, e.by, e.to));
      if (mine) mine.count += e.count;
      else this.edges.set(keyOf(e.from, e.by, e.to), { ...e });
    }
    for (const [call, n] of other.calls) this.calls.set(call, (this.calls.get(call) ?? 0) + n);
  }

  /** The table's rows with their counts, and the edges seen beside them. */
  table(): EdgeTable {
    const table = TRANSITIONS.map((t) => ({ ...t, count: 0 }));
    const jumps: EdgeCount[] = [];
    const outside: EdgeCount[] = [];
    for (const e of this.edges.values()) {
      const row = table.find((t) => matches(t, e.from, e.by, e.to));
      if (row) row.count += e.count;
      else if (isJump(e)) jumps.push({ ...e });
      else outside.push({ ...e });
    }
    return { table, jumps, outside, calls: Object.fromEntries([...this.calls].sort()) };
  }
}

/**
 * Edges over several rows, seen between two reads: IN_QUEUE to a final state (the worker took the
 * job and ended it meanwhile), a retry taken from a job last seen unfinished (it failed or timed
 * out meanwhile, unseen), and a /runsync answered with anything but COMPLETED (where its job got
 * within the wait: still queued or running, or ended otherwise), and results gone past retention
 * from a job last seen unfinished.
 */
function isJump(e: EdgeCount): boolean {
  if (e.from === 'none') return e.by === 'runsync' && e.to !== 'deleted' && e.to !== 'results-gone';
  if (e.by === 'retry') return e.to === 'IN_QUEUE' && !isFinalStatus(e.from);
  if (e.by === 'retention-expiry') return !isFinalStatus(e.from);
  if (e.by !== 'server' || e.from !== 'IN_QUEUE') return false;
  return e.to !== 'deleted' && e.to !== 'results-gone' && e.to !== 'CANCELLED' && isFinalStatus(e.to);
}
