import { CappedMap } from '../core/capped-map.js';
import type { ExchangeRecord } from '../core/record.js';
import { DEFAULT_RUN_LIMITS } from '../core/run-limits.js';
import { BucketCounts } from './bucket-counts.js';

/** When jobs of one priority may have been in the queue: sorted starts and ends, for counting. */
export interface SpanIndex {
  /** How many of the spans overlap [from, to]. */
  overlapping(from: number, to: number): number;
}

/** Index of the first element of sorted `xs` greater than `x` (`strict`: not less than `x`). */
function upper(xs: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = xs[mid] as number;
    if (strict ? v < x : v <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An index of spans given as starts and ends (in any order; an open end is Infinity). */
export function spanIndex(starts: readonly number[], ends: readonly number[]): SpanIndex {
  const s = Float64Array.from(starts).sort();
  const e = Float64Array.from(ends).sort();
  // A span overlaps [from, to] when it started by `to` and did not end before `from` (a span that
  // ended before `from` also started before `to`).
  return { overlapping: (from, to) => upper(s, to, false) - upper(e, from, true) };
}

const QUEUE_LEAVING_OPS = new Set(['run', 'runsync', 'status', 'status-sync', 'stream', 'cancel', 'retry']);

/**
 * Jobs in the queue at a `/health` read that call for workers: those it counted, less our
 * lowPriority ones that may have been queued then (which "do not trigger worker scaling"). The
 * scaling checks and the scale-up episodes both count queued work this way.
 */
export function queuedCallingForWorkers(
  inQueue: number,
  low: SpanIndex,
  fromMs: number,
  toMs: number,
): number {
  return Math.max(0, inQueue - low.overlapping(fromMs, toMs));
}

/** What QueueSpans keeps at most, and for whom. */
export interface QueueSpansOptions {
  /** Keep the lowPriority spans alone (the metrics need no others; a run may submit millions). */
  lowOnly?: boolean;
  /**
   * Jobs followed at once until seen leaving the queue, lowPriority jobs remembered for their
   * retries, and closed spans kept exact per priority (default RunLimits.queuedJobs).
   */
  maxJobs?: number;
}

/** Spans past the exact ones are counted by bucket of this many ms, widened to its edges. */
export const COARSE_SPAN_MS = 100;

/**
 * When each job of ours may have been queued, by priority, from the records: from when its submit
 * (or retry) was sent until the first answer that showed it out of the queue (another status, a
 * 404, a purge). Spans are upper bounds: a job never seen again counts as queued to the end, and
 * a submit that got no answer may have made a job no answer named, queued to the end too.
 *
 * Memory is bounded for soaks of millions of jobs, keeping the spans upper bounds: past `maxJobs`
 * jobs followed at once the oldest is given up on (queued to the end, as if never seen again);
 * past `maxJobs` closed spans of a priority the oldest half is counted coarsely, its starts and
 * ends by bucket of COARSE_SPAN_MS, each span widened to the bucket edges around it.
 */
export class QueueSpans {
  private readonly lowOnly: boolean;
  private readonly maxJobs: number;
  private readonly open: CappedMap<string, { low: boolean; from: number }>;
  /**
   * Jobs sent as lowPriority, for their retries: the latest `maxJobs`. Not counted when forgotten
   * (nearly all never retry): a retry of one taken for a normal job's counts as work that calls
   * for workers, an upper bound of it.
   */
  private readonly lowIds: CappedMap<string, true>;
  /** Closed spans by priority (normal, low), in the order they closed; an end may be Infinity. */
  private readonly starts: [number[], number[]] = [[], []];
  private readonly ends: [number[], number[]] = [[], []];
  private readonly coarseStarts: [BucketCounts, BucketCounts] = [new BucketCounts(), new BucketCounts()];
  private readonly coarseEnds: [BucketCounts, BucketCounts] = [new BucketCounts(), new BucketCounts()];
  private coarsened = 0;
  private givenUp = 0;

  constructor(options: QueueSpansOptions = {}) {
    this.lowOnly = options.lowOnly ?? false;
    this.maxJobs = options.maxJobs ?? DEFAULT_RUN_LIMITS.queuedJobs;
    this.open = new CappedMap(this.maxJobs, (_, o) => {
      this.givenUp++;
      this.close(o.low, o.from, Infinity);
    });
    this.lowIds = new CappedMap(this.maxJobs);
  }

  /**
   * What the caps cost: closed spans counted coarsely (and left out of `lowSpans`), and jobs given
   * up on while queued (then counted as queued to the end of the run).
   */
  get dropped(): { limit: number; coarsened: number; givenUp: number } {
    return { limit: this.maxJobs, coarsened: this.coarsened, givenUp: this.givenUp };
  }

  add(r: ExchangeRecord): void {
    if (r.op === 'openai') {
      if (r.method === 'POST') this.close(false, r.sentAt, r.status === undefined ? Infinity : r.endAt);
    } else if (r.op === 'purge-queue') {
      if (r.status === 200) for (const [id] of [...this.open.entries()]) this.leave(id, r.endAt);
    } else this.addJob(r);
  }

  private addJob(r: ExchangeRecord): void {
    const submit = r.op === 'run' || r.op === 'runsync';
    if (submit && !this.lowOnly && (r.status === undefined || r.status >= 500))
      this.close(false, r.sentAt, Infinity);
    // A /runsync answered 404 made a job that was deleted (its ttl ran out) while it waited: queued
    // for as long as the wait, though no answer named it.
    if (r.op === 'runsync' && r.status === 404) this.close(r.req?.lowPriority === true, r.sentAt, r.endAt);
    if (r.jobId === undefined || !QUEUE_LEAVING_OPS.has(r.op)) return;
    if ((submit || r.op === 'retry') && r.status === 200) this.enter(r, submit);
    const status = (r.body as { status?: unknown } | undefined)?.status;
    if (r.status === 404 || (r.status === 200 && typeof status === 'string' && status !== 'IN_QUEUE'))
      this.leave(r.jobId, r.endAt);
  }

  /** The spans of one priority, those still open ending at infinity. */
  index(low: boolean): SpanIndex {
    const p = low ? 1 : 0;
    const starts = [...this.starts[p]];
    const ends = [...this.ends[p]];
    for (const o of this.open.values()) {
      if (o.low !== low) continue;
      starts.push(o.from);
      ends.push(Infinity);
    }
    const exact = spanIndex(starts, ends);
    const startsUpTo = this.coarseStarts[p].cumulative();
    const endsUpTo = this.coarseEnds[p].cumulative();
    // A coarse start counts from its bucket's start, a coarse end until its bucket's end.
    return {
      overlapping: (from, to) =>
        exact.overlapping(from, to) +
        startsUpTo(Math.floor(to / COARSE_SPAN_MS)) -
        endsUpTo(Math.ceil(from / COARSE_SPAN_MS) - 1),
    };
  }

  /**
   * The exact spans of our lowPriority jobs (those counted coarsely are left out), shifted by
   * `shiftMs` (a run's wall-clock anchor), an open one ending at null: what the scaling figures
   * keep, so that their episodes leave out the queued jobs the scaling checks leave out, read
   * from the same spans.
   */
  lowSpans(shiftMs = 0): [number, number | null][] {
    const ends = this.ends[1];
    const out: [number, number | null][] = this.starts[1].map((from, i) => {
      const to = ends[i] ?? from;
      return [from + shiftMs, to === Infinity ? null : to + shiftMs];
    });
    for (const o of this.open.values()) if (o.low) out.push([o.from + shiftMs, null]);
    return out;
  }

  private enter(r: ExchangeRecord, submit: boolean): void {
    const id = r.jobId as string;
    const low = submit ? r.req?.lowPriority === true : this.lowIds.has(id);
    if (low) this.lowIds.set(id, true);
    else if (this.lowOnly) return;
    if (!this.open.has(id)) this.open.set(id, { low, from: r.sentAt });
  }

  private leave(id: string, at: number): void {
    const o = this.open.get(id);
    if (o === undefined) return;
    this.open.delete(id);
    this.close(o.low, o.from, at);
  }

  private close(low: boolean, from: number, to: number): void {
    if (!low && this.lowOnly) return;
    const p = low ? 1 : 0;
    const starts = this.starts[p];
    const ends = this.ends[p];
    starts.push(from);
    ends.push(to);
    if (starts.length > this.maxJobs) this.coarsen(p, Math.max(1, starts.length >> 1));
  }

  /** The oldest `n` closed spans of priority `p`, from exact to counted by bucket. */
  private coarsen(p: 0 | 1, n: number): void {
    const starts = this.starts[p].splice(0, n);
    const ends = this.ends[p].splice(0, n);
    for (const from of starts) this.coarseStarts[p].add(Math.floor(from / COARSE_SPAN_MS));
    // An end at infinity is never before a read: it needs no count.
    for (const to of ends) if (to !== Infinity) this.coarseEnds[p].add(Math.ceil(to / COARSE_SPAN_MS));
    this.coarsened += n;
  }
}
