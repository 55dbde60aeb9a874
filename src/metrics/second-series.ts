import type { ExchangeRecord } from '../core/record.js';
import { healthReadingOf } from '../core/health-reading.js';
import { SparseHistogram } from './sparse-histogram.js';
import { FINAL_STATES, type FinalState, type OperationSeriesData, type SeriesData } from './metrics-data.js';
import { OUTCOMES, outcomeOf, type Outcome } from './outcome.js';

interface OperationSecond {
  requests: number;
  latency: SparseHistogram;
  /** Requests by outcome: what windowed rates and counts read. */
  outcomes: Partial<Record<Outcome, number>>;
  /** Latency of the requests that got no answer (outcome `error`): answers-only percentiles take it off. */
  unanswered: SparseHistogram | undefined;
}

/** One operation's second, as windowed thresholds read it. */
export type OperationSecondView = Readonly<OperationSecond>;

/** One second of the series, as windowed thresholds read it (see SecondSource). */
export interface SecondView {
  readonly submitted: number;
  readonly dropped: number;
  readonly finals: Readonly<Record<FinalState, number>>;
  readonly ops: ReadonlyMap<string, OperationSecondView>;
}

/** Per-second data read by whole seconds (epoch seconds): a live series or one read back from a summary. */
export interface SecondSource {
  /** The first and last seconds holding anything; undefined when empty. */
  span(): { first: number; last: number } | undefined;
  second(sec: number): SecondView | undefined;
}

interface Second {
  requests: number;
  r429: number;
  errors: number;
  busyUs: number;
  submitted: number;
  dropped: number;
  /** Arrivals whose first request was due in this second (the schedule's, or the trace's, time). */
  due: number;
  /** Arrivals whose first request went out in this second. */
  sent: number;
  finals: Record<FinalState, number>;
  workers: number | null;
  queue: number | null;
  ops: Map<string, OperationSecond>;
  unsettled: boolean;
}

function emptySecond(): Second {
  return {
    requests: 0,
    r429: 0,
    errors: 0,
    busyUs: 0,
    submitted: 0,
    dropped: 0,
    due: 0,
    sent: 0,
    finals: { COMPLETED: 0, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 },
    workers: null,
    queue: null,
    ops: new Map(),
    unsettled: false,
  };
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}

function mergeSecond(into: Second, from: Second): void {
  into.requests += from.requests;
  into.r429 += from.r429;
  into.errors += from.errors;
  into.busyUs += from.busyUs;
  into.submitted += from.submitted;
  into.dropped += from.dropped;
  into.due += from.due;
  into.sent += from.sent;
  for (const s of FINAL_STATES) into.finals[s] += from.finals[s];
  into.workers = maxOf(into.workers, from.workers);
  into.queue = maxOf(into.queue, from.queue);
  for (const [op, o] of from.ops) {
    let mine = into.ops.get(op);
    if (!mine) {
      mine = emptyOperation();
      into.ops.set(op, mine);
    }
    mine.requests += o.requests;
    mine.latency.merge(o.latency);
    for (const k of OUTCOMES)
      if (o.outcomes[k]) mine.outcomes[k] = (mine.outcomes[k] ?? 0) + (o.outcomes[k] ?? 0);
    if (o.unanswered) (mine.unanswered ??= new SparseHistogram()).merge(o.unanswered);
  }
}

function emptyOperation(): OperationSecond {
  return { requests: 0, latency: new SparseHistogram(), outcomes: {}, unanswered: undefined };
}

/** Seconds behind the newest one after which a second's histograms are compacted. */
const SETTLE_SECONDS = 5;

/** A request spanning an hour would otherwise touch 3,600 buckets; past that its time is ignored. */
const MAX_BUSY_SECONDS = 3600;

/**
 * Per-second series keyed by wall-clock second (epoch seconds), not by seconds since a shard's
 * start, so shards that started at different moments line up exactly when merged. Everything kept
 * per second is a sum, a max or a histogram, so merging in any order gives the same result. Memory
 * grows with the number of seconds, bounded per second (one sparse histogram per operation).
 */
export class SecondSeries implements SecondSource {
  private readonly seconds = new Map<number, Second>();
  /** Seconds whose histograms are still live (Maps), oldest first; see `settle`. */
  private readonly unsettled: number[] = [];
  private latest = -Infinity;

  addExchange(anchorMs: number, r: ExchangeRecord): void {
    const s = this.at(anchorMs + r.endAt);
    s.requests++;
    const outcome = outcomeOf(r);
    if (outcome === '429') s.r429++;
    if (outcome === 'error' || outcome === '5xx') s.errors++;
    let op = s.ops.get(r.op);
    if (!op) {
      op = emptyOperation();
      s.ops.set(r.op, op);
    }
    op.requests++;
    op.outcomes[outcome] = (op.outcomes[outcome] ?? 0) + 1;
    op.latency.recordMs(r.endAt - r.intendedAt);
    if (outcome === 'error') (op.unanswered ??= new SparseHistogram()).recordMs(r.endAt - r.intendedAt);
    const reading = healthReadingOf(r);
    if (reading) {
      s.workers = maxOf(s.workers, reading.running);
      s.queue = maxOf(s.queue, reading.inQueue);
    }
    this.addBusy(anchorMs + r.sentAt, anchorMs + r.endAt);
    if (r.arrival === true) {
      this.at(anchorMs + r.intendedAt).due++;
      this.at(anchorMs + r.sentAt).sent++;
    }
  }

  addSubmitted(wallMs: number): void {
    this.at(wallMs).submitted++;
  }

  addFinal(wallMs: number, state: FinalState): void {
    this.at(wallMs).finals[state]++;
  }

  addDropped(wallMs: number): void {
    this.at(wallMs).dropped++;
  }

  merge(other: SecondSeries): void {
    for (const [sec, from] of other.seconds) {
      let into = this.seconds.get(sec);
      if (!into) {
        into = emptySecond();
        this.seconds.set(sec, into);
      }
      mergeSecond(into, from);
    }
    // Merging happens after a run (shards, summaries): nothing will be added, so keep it compact.
    for (const s of this.seconds.values()) for (const o of s.ops.values()) compactOperation(o);
  }

  span(): { first: number; last: number } | undefined {
    if (this.seconds.size === 0) return undefined;
    let first = Infinity;
    let last = -Infinity;
    for (const k of this.seconds.keys()) {
      first = Math.min(first, k);
      last = Math.max(last, k);
    }
    return { first, last };
  }

  second(sec: number): SecondView | undefined {
    return this.seconds.get(sec);
  }

  toJSON(): SeriesData {
    // A loop, not Math.min(...keys): a day-long run has more seconds than a call has arguments.
    let lo = Infinity;
    let hi = -Infinity;
    for (const k of this.seconds.keys()) {
      lo = Math.min(lo, k);
      hi = Math.max(hi, k);
    }
    const startSec = this.seconds.size ? lo : 0;
    const length = this.seconds.size ? hi - lo + 1 : 0;
    const zeros = (): number[] => new Array<number>(length).fill(0);
    const data: SeriesData = {
      startSec,
      length,
      requests: zeros(),
      r429: zeros(),
      errors: zeros(),
      busyUs: zeros(),
      submitted: zeros(),
      dropped: zeros(),
      finals: { COMPLETED: zeros(), FAILED: zeros(), CANCELLED: zeros(), TIMED_OUT: zeros() },
      workers: new Array<number | null>(length).fill(null),
      queue: new Array<number | null>(length).fill(null),
      ops: {},
    };
    const opNames = [...new Set([...this.seconds.values()].flatMap((s) => [...s.ops.keys()]))].sort();
    for (const op of opNames) data.ops[op] = this.operationColumns(op, length);
    // Only when the records marked arrivals (older records, and merges of them, have no such columns).
    const arrivals = [...this.seconds.values()].some((s) => s.due > 0 || s.sent > 0);
    if (arrivals) {
      data.due = zeros();
      data.sent = zeros();
    }
    for (const [sec, s] of this.seconds) {
      const i = sec - startSec;
      data.requests[i] = s.requests;
      data.r429[i] = s.r429;
      data.errors[i] = s.errors;
      data.busyUs[i] = s.busyUs;
      data.submitted[i] = s.submitted;
      data.dropped[i] = s.dropped;
      if (data.due && data.sent) {
        data.due[i] = s.due;
        data.sent[i] = s.sent;
      }
      for (const st of FINAL_STATES) data.finals[st][i] = s.finals[st];
      data.workers[i] = s.workers;
      data.queue[i] = s.queue;
      for (const [op, o] of s.ops) {
        const target = data.ops[op];
        if (!target) continue;
        target.requests[i] = o.requests;
        target.latency[i] = o.latency.encode();
        for (const k of OUTCOMES) {
          const column = target.outcomes?.[k];
          if (column) column[i] = o.outcomes[k] ?? 0;
        }
        if (target.unanswered) target.unanswered[i] = o.unanswered?.encode() ?? '';
      }
    }
    return data;
  }

  /**
   * One operation's empty columns; `outcomes` holds only the outcomes that occurred and
   * `unanswered` is there only when a request went unanswered, so a clean run's file stays small.
   */
  private operationColumns(op: string, length: number): OperationSeriesData {
    const seen = new Set<Outcome>();
    let unanswered = false;
    for (const s of this.seconds.values()) {
      const o = s.ops.get(op);
      if (!o) continue;
      for (const k of OUTCOMES) if (o.outcomes[k]) seen.add(k);
      unanswered ||= o.unanswered !== undefined;
    }
    const outcomes: Partial<Record<Outcome, number[]>> = {};
    for (const k of OUTCOMES) if (seen.has(k)) outcomes[k] = new Array<number>(length).fill(0);
    return {
      requests: new Array<number>(length).fill(0),
      latency: new Array<string>(length).fill(''),
      ...(seen.size > 0 ? { outcomes } : {}),
      ...(unanswered ? { unanswered: new Array<string>(length).fill('') } : {}),
    };
  }

  static fromJSON(data: SeriesData): SecondSeries {
    const series = new SecondSeries();
    for (let i = 0; i < data.length; i++) {
      const s = emptySecond();
      s.requests = data.requests[i] ?? 0;
      s.r429 = data.r429[i] ?? 0;
      s.errors = data.errors[i] ?? 0;
      s.busyUs = data.busyUs[i] ?? 0;
      s.submitted = data.submitted[i] ?? 0;
      s.dropped = data.dropped[i] ?? 0;
      s.due = data.due?.[i] ?? 0;
      s.sent = data.sent?.[i] ?? 0;
      for (const st of FINAL_STATES) s.finals[st] = data.finals[st][i] ?? 0;
      s.workers = data.workers[i] ?? null;
      s.queue = data.queue[i] ?? null;
      for (const [op, o] of Object.entries(data.ops)) {
        const requests = o.requests[i] ?? 0;
        if (requests > 0) s.ops.set(op, operationAt(o, i, requests));
      }
      // Seconds with nothing in them are not kept, so a round trip keeps the same keys.
      if (!isEmpty(s)) series.seconds.set(data.startSec + i, s);
    }
    return series;
  }

  private at(wallMs: number): Second {
    const sec = Math.floor(wallMs / 1000);
    let s = this.seconds.get(sec);
    if (!s) {
      s = emptySecond();
      this.seconds.set(sec, s);
    }
    if (!s.unsettled) {
      s.unsettled = true;
      this.unsettled.push(sec);
    }
    if (sec > this.latest) {
      this.latest = sec;
      this.settle();
    }
    return s;
  }

  /**
   * Records arrive roughly in time order, so a second well behind the newest one is done: its
   * histograms are compacted (a late record re-opens it, correctly, just more slowly). This keeps
   * the series at a few KB per second at thousands of requests per second.
   */
  private settle(): void {
    while (this.unsettled.length && (this.unsettled[0] ?? 0) <= this.latest - SETTLE_SECONDS) {
      const sec = this.unsettled.shift() ?? 0;
      const s = this.seconds.get(sec);
      if (!s) continue;
      s.unsettled = false;
      for (const o of s.ops.values()) compactOperation(o);
    }
  }

  /**
   * Splits the request's time in flight over the seconds it spans, in whole microseconds; an end
   * not after the start (no time, clock skew) overlaps no second.
   */
  private addBusy(fromMs: number, toMs: number): void {
    const first = Math.floor(fromMs / 1000);
    const last = Math.min(Math.floor(toMs / 1000), first + MAX_BUSY_SECONDS);
    for (let sec = first; sec <= last; sec++) {
      const overlap = Math.min(toMs, (sec + 1) * 1000) - Math.max(fromMs, sec * 1000);
      if (overlap > 0) this.at(sec * 1000).busyUs += Math.round(overlap * 1000);
    }
  }
}

function operationAt(o: OperationSeriesData, i: number, requests: number): OperationSecond {
  const outcomes: Partial<Record<Outcome, number>> = {};
  for (const k of OUTCOMES) {
    const n = o.outcomes?.[k]?.[i] ?? 0;
    if (n > 0) outcomes[k] = n;
  }
  const unanswered = o.unanswered?.[i] ?? '';
  return {
    requests,
    latency: SparseHistogram.decode(o.latency[i] ?? ''),
    outcomes,
    unanswered: unanswered === '' ? undefined : SparseHistogram.decode(unanswered),
  };
}

function compactOperation(o: OperationSecond): void {
  o.latency.compact();
  o.unanswered?.compact();
}

function isEmpty(s: Second): boolean {
  return (
    s.requests === 0 &&
    s.busyUs === 0 &&
    s.submitted === 0 &&
    s.dropped === 0 &&
    s.workers === null &&
    s.queue === null &&
    FINAL_STATES.every((st) => s.finals[st] === 0)
  );
}
