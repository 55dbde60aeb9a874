import type { ExchangeRecord } from '../core/record.js';

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

/**
 * When each job of ours may have been queued, by priority, from the records: from when its submit
 * (or retry) was sent until the first answer that showed it out of the queue (another status, a
 * 404, a purge). Spans are upper bounds: a job never seen again counts as queued to the end, and
 * a submit that got no answer may have made a job no answer named, queued to the end too.
 */
export class QueueSpans {
  private readonly open = new Map<string, { low: boolean; from: number }>();
  /** Jobs sent as lowPriority, for their retries. */
  private readonly lowIds = new Set<string>();
  private readonly starts: [number[], number[]] = [[], []];
  private readonly ends: [number[], number[]] = [[], []];
  private unnamed: number[] = [];

  /** `lowOnly`: keep the lowPriority spans alone (the metrics need no others; a run may submit millions). */
  constructor(private readonly lowOnly = false) {}

  add(r: ExchangeRecord): void {
    if (r.op === 'openai') {
      if (r.method === 'POST') this.close(false, r.sentAt, r.status === undefined ? Infinity : r.endAt);
    } else if (r.op === 'purge-queue') {
      if (r.status === 200) for (const id of [...this.open.keys()]) this.leave(id, r.endAt);
    } else this.addJob(r);
  }

  private addJob(r: ExchangeRecord): void {
    const submit = r.op === 'run' || r.op === 'runsync';
    if (submit && !this.lowOnly && (r.status === undefined || r.status >= 500)) this.unnamed.push(r.sentAt);
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
    if (!low)
      for (const at of this.unnamed) {
        starts.push(at);
        ends.push(Infinity);
      }
    return spanIndex(starts, ends);
  }

  /**
   * The spans of our lowPriority jobs, shifted by `shiftMs` (a run's wall-clock anchor), an open
   * one ending at null: what the scaling figures keep, so that their episodes leave out the queued
   * jobs the scaling checks leave out, read from the same spans.
   */
  lowSpans(shiftMs = 0): [number, number | null][] {
    const out: [number, number | null][] = this.starts[1].map((from, i) => [
      from + shiftMs,
      (this.ends[1][i] ?? from) + shiftMs,
    ]);
    for (const o of this.open.values()) if (o.low) out.push([o.from + shiftMs, null]);
    return out;
  }

  private enter(r: ExchangeRecord, submit: boolean): void {
    const id = r.jobId as string;
    const low = submit ? r.req?.lowPriority === true : this.lowIds.has(id);
    if (low) this.lowIds.add(id);
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
    this.starts[p].push(from);
    this.ends[p].push(to);
  }
}
