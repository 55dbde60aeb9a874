import { QUEUE_OPERATION_CONTRACTS } from '../../../contracts/queue/operations.js';
import {
  effectiveRateLimit,
  RATE_LIMITS,
  RATE_WINDOW_MS,
  type RateLimit,
} from '../../../contracts/queue/rate-limits.js';
import { finishedOf, healthReadingOf } from '../../core/health-reading.js';
import type { QueueOperation } from '../../core/operation.js';
import { writtenAt, type ExchangeRecord, type JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext, Judgement } from '../check.js';
import { MinHeap } from '../min-heap.js';
import { SendLog, SendOutcome } from '../send-log.js';

/** Responses can arrive this long after they were sent; judge a request only once all earlier sends are in. */
const SETTLE_MS = 35_000;

/**
 * No window still to be judged opens more than this long before a /health sample just read: a
 * request is judged once the latest answer ended 35 s after it was sent, and its window opens 10 s
 * before it.
 */
const SAMPLES_KEPT_MS = SETTLE_MS + RATE_WINDOW_MS;

/** The observed ceiling of one operation: what the service let through at most. */
export interface RateCeiling {
  op: QueueOperation;
  limit: number;
  concurrent?: number;
  maxAcceptedPerWindow: number;
  maxConcurrent: number;
  accepted: number;
  throttled: number;
}

/** Requests of one operation, and running-worker samples, evaluated in send order. */
class OperationWindow {
  /**
   * Its detail: the throttled answer itself (its evidence), and for accepted answers one in each
   * second of send time, so a `not-enforced` finding cites an accepted exchange of its window that
   * really happened, without holding every accepted record of the last 45 s.
   */
  private readonly log = new SendLog<ExchangeRecord>();
  /** No second yet: NaN equals none, where -1 is the second of a preflight request (before time 0). */
  private keptSecond = NaN;
  private next = 0;
  /** First entry still inside the accepted-count window of the entry being judged. */
  private lo = 0;
  private acceptedInWindow = 0;
  private allLo = 0;
  /**
   * End times of requests sent before the generous window that ended inside it: the service
   * counts a request when it reads it, and a stalled server reads a request long after it was
   * sent, so such a request may be in the window of a later 429.
   */
  private readonly lingering = new MinHeap();
  private readonly inFlight = new MinHeap();
  private lastNotEnforced = -Infinity;
  readonly ceiling: RateCeiling;

  constructor(
    readonly op: QueueOperation,
    readonly row: RateLimit,
  ) {
    this.ceiling = {
      op,
      limit: row.perWindow,
      // No key when the row has no concurrency limit (ratelimit-enforced.test compares with toStrictEqual).
      ...(row.concurrent === undefined ? {} : { concurrent: row.concurrent }),
      maxAcceptedPerWindow: 0,
      maxConcurrent: 0,
      accepted: 0,
      throttled: 0,
    };
  }

  push(r: ExchangeRecord, outcome: SendOutcome): void {
    let detail: ExchangeRecord | undefined;
    // "Sent" in this window is when the request went onto a connection: one that waited in our
    // pool for a free connection cannot have been read, nor counted, before that.
    const sentAt = writtenAt(r);
    if (outcome === SendOutcome.Throttled) detail = r;
    else if (outcome === SendOutcome.Accepted && Math.floor(sentAt / 1000) !== this.keptSecond) {
      this.keptSecond = Math.floor(sentAt / 1000);
      detail = r;
    }
    this.log.push(sentAt, r.endAt, outcome, detail, this.next);
  }

  judgeUpTo(until: number, ctx: CheckContext, running: RunningSamples): void {
    const log = this.log;
    const edge = ctx.tolerances.windowEdgeMs;
    while (this.next < log.length) {
      const sentAt = log.sentAt(this.next);
      if (sentAt > until) break;
      this.slide(sentAt, edge);
      const rpw = ctx.run.requestsPerWorker;
      if (log.throttled(this.next)) this.judgeThrottled(sentAt, ctx, running, rpw);
      else if (log.accepted(this.next)) {
        this.ceiling.accepted++;
        this.acceptedInWindow++;
        this.inFlight.push(log.endAt(this.next));
        this.ceiling.maxAcceptedPerWindow = Math.max(
          this.ceiling.maxAcceptedPerWindow,
          this.acceptedInWindow,
        );
        this.ceiling.maxConcurrent = Math.max(this.ceiling.maxConcurrent, this.inFlight.size);
        this.notEnforced(this.next, this.acceptedInWindow - this.sentTooEarly(edge), ctx, running, rpw);
      }
      this.next++;
    }
    // Entries before both window starts are out of every later window.
    log.release(Math.min(this.lo, this.allLo));
  }

  /** Moves both windows' starts up to the entry sent at `sentAt`, the one judged next. */
  private slide(sentAt: number, edge: number): void {
    const log = this.log;
    // Accepted count in [sentAt - window + edge, sentAt]: strict, for not-enforced.
    while (this.lo < this.next && log.sentAt(this.lo) < sentAt - RATE_WINDOW_MS + edge) {
      if (log.accepted(this.lo)) this.acceptedInWindow--;
      this.lo++;
    }
    // All requests that may have reached the service in (sentAt - window - edge, sentAt]: generous, for early.
    // It stops at the entry judged next at the latest, which was sent after the bound.
    const bound = sentAt - RATE_WINDOW_MS - edge;
    while (log.sentAt(this.allLo) <= bound) {
      if (log.endAt(this.allLo) > bound) this.lingering.push(log.endAt(this.allLo));
      this.allLo++;
    }
    while ((this.lingering.peek() ?? Infinity) <= bound) this.lingering.pop();
    while ((this.inFlight.peek() ?? Infinity) <= sentAt) this.inFlight.pop();
  }

  /** `ratelimit.early` and a Retry-After too long, for the throttled entry judged now. */
  private judgeThrottled(
    sentAt: number,
    ctx: CheckContext,
    running: RunningSamples,
    rpw: number | undefined,
  ): void {
    this.ceiling.throttled++;
    const ahead = this.sentDuring(this.next);
    const allInWindow = this.next - this.allLo + this.lingering.size + ahead.all;
    const concurrent = this.inFlight.size + ahead.accepted;
    const low = effectiveRateLimit(
      this.row.perWindow,
      running.min(sentAt - RATE_WINDOW_MS, sentAt),
      rpw ?? 0,
    );
    const under = 1 - ctx.tolerances.rateUnderrun;
    const windowFree = allInWindow < low * under - 1;
    const concurrencyFree = this.row.concurrent === undefined || concurrent < this.row.concurrent * under - 1;
    // Every throttled entry keeps its exchange as its detail.
    const detail = this.log.detail(this.next);
    const v = ctx.judge('ratelimit.early', detail !== undefined && windowFree && concurrencyFree);
    if (v && detail) this.early(v, detail, allInWindow, low, concurrent, ctx);
    if (detail) this.retryAfterTooLong(detail, concurrent, ctx);
  }

  /**
   * Requests sent while entry `i` was on its way, all and accepted: the service read `i` at some
   * time before its answer ended, and may have read any of these before it, into its window and
   * its count of requests in progress. A 429 answered at once has few or none.
   */
  private sentDuring(i: number): { all: number; accepted: number } {
    // No edge here: a request sent after the answer came back cannot have been read before it,
    // and in a storm of 429s each one scans only what went out during its own round trip.
    const until = this.log.endAt(i);
    let all = 0;
    let accepted = 0;
    for (let k = i + 1; k < this.log.length && this.log.sentAt(k) < until; k++) {
      all++;
      if (this.log.accepted(k)) accepted++;
    }
    return { all, accepted };
  }

  /**
   * Accepted requests in the window that may still lie in another window of the service's: it
   * counted the judged request when it arrived, some time before its answer ended, so one sent
   * more than a window before that end may be a window away, however late the judged send went
   * out (a loaded client queues sends). Only slow answers leave any.
   */
  private sentTooEarly(edge: number): number {
    const bound = this.log.endAt(this.next) - RATE_WINDOW_MS + edge;
    let n = 0;
    for (let k = this.lo; k < this.next && this.log.sentAt(k) < bound; k++) if (this.log.accepted(k)) n++;
    return n;
  }

  /**
   * A 429 under the limit. Only the run that has the endpoint to itself can be sure: the limits are
   * per account and endpoint, and other clients' traffic is invisible to us, so elsewhere it is a
   * warning that says so.
   */
  private early(
    v: Judgement<'ratelimit.early'>,
    r: ExchangeRecord,
    allInWindow: number,
    low: number,
    concurrent: number,
    ctx: CheckContext,
  ): void {
    const exclusive = ctx.run.exclusiveEndpoint ?? ctx.run.ownsEndpoint;
    const message = `${this.op} got 429 with at most ${String(allInWindow)} requests that can have reached the service in its 10 s window (effective limit ${String(low)}) and at most ${String(concurrent)} in flight${this.row.concurrent === undefined ? '' : ` (cap ${String(this.row.concurrent)})`}`;
    if (exclusive) ctx.emit(v, { record: r, message });
    else
      ctx.emit(v, {
        record: r,
        severity: 'warning',
        message: `${message}; the limit may be shared with other clients of this endpoint (run with --exclusive-endpoint if it is not)`,
      });
  }

  private notEnforced(
    i: number,
    acceptedInWindow: number,
    ctx: CheckContext,
    running: RunningSamples,
    rpw: number | undefined,
  ): void {
    const sentAt = this.log.sentAt(i);
    const maxRunning = running.max(sentAt - RATE_WINDOW_MS, sentAt);
    // Without requestsPerWorker the dynamic limit is unknown once workers run: nothing to judge.
    if (rpw === undefined && maxRunning > 0) return;
    const high = effectiveRateLimit(this.row.perWindow, maxRunning, rpw ?? 0);
    const over = 1 + ctx.tolerances.rateOverrun;
    const record =
      acceptedInWindow > high * over + 1 && sentAt - this.lastNotEnforced >= RATE_WINDOW_MS
        ? this.keptAcceptedNear(i)
        : undefined;
    const v = ctx.judge('ratelimit.not-enforced', record !== undefined);
    if (v && record) {
      this.lastNotEnforced = sentAt;
      ctx.emit(v, {
        record,
        message: `${this.op} accepted ${String(acceptedInWindow)} requests (2xx) within the 10 s before ${String(Math.round(sentAt))} ms; the effective limit is ${String(high)}. The evidence is one of them`,
      });
    }
  }

  /** The accepted exchange kept nearest before entry `i` within its window (one is kept per second). */
  private keptAcceptedNear(i: number): ExchangeRecord | undefined {
    for (let j = i; j >= this.lo; j--) {
      const d = this.log.detail(j);
      if (d && this.log.accepted(j)) return d;
    }
    return undefined;
  }

  /**
   * `ratelimit.retry-after` for a 429 whose Retry-After reads as a time (one without, or unreadable,
   * was judged when it came): whether it can be true depends on the requests in flight.
   */
  private retryAfterTooLong(r: ExchangeRecord, concurrent: number, ctx: CheckContext): void {
    if (!r.retryAfter) return;
    const seconds = retryAfterSeconds(r.retryAfter, ctx.run.startedAtMs + r.endAt);
    if (seconds === undefined) return;
    // No cap (an infinite one) is never full.
    const atCap = concurrent >= (this.row.concurrent ?? Infinity) * (1 - ctx.tolerances.rateUnderrun) - 1;
    // A sliding 10 s window always frees a slot within 10 s; only a full concurrency cap can take longer.
    const v = ctx.judge(
      'ratelimit.retry-after',
      !atCap && seconds * 1000 > RATE_WINDOW_MS + ctx.tolerances.clockSkewMs,
    );
    if (v) {
      ctx.emit(v, {
        record: r,
        message: `Retry-After: ${r.retryAfter} (${String(seconds)} s) cannot be true: a 10 s window frees a slot within 10 s`,
      });
    }
  }
}

/** How many of sorted `xs` are below `x` (`inclusive`: at most `x`). */
function sortedIndex(xs: readonly number[], x: number, inclusive: boolean): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const v = xs[mid] ?? 0;
    if (v < x || (inclusive && v === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Running-worker counts from /health samples, as a step function of send time. Every judged
 * request asks for the extremes over its own 10 s, and neighbouring requests almost always cover
 * the same samples, so the last answer of each kind is kept with the samples it covered.
 */
class RunningSamples {
  private readonly at: number[] = [];
  private readonly running: number[] = [];
  /** Jobs finished (completed + failed) by each sample, when /health says. */
  private readonly finished: (number | undefined)[] = [];
  /** Send times of our accepted cancels, sorted: each may have stopped a running job. */
  private readonly cancels: number[] = [];
  private readonly last = { min: { lo: -1, hi: -1, value: 0 }, max: { lo: -1, hi: -1, value: 0 } };

  add(at: number, running: number, finished: number | undefined): void {
    // Samples answer out of order at times; keep them by send time.
    let i = this.at.length;
    this.at.push(at);
    this.running.push(running);
    this.finished.push(finished);
    while (i > 0 && (this.at[i - 1] ?? 0) > at) {
      this.at[i] = this.at[i - 1] ?? 0;
      this.running[i] = this.running[i - 1] ?? 0;
      this.finished[i] = this.finished[i - 1];
      i--;
    }
    this.at[i] = at;
    this.running[i] = running;
    this.finished[i] = finished;
    // Let go of the oldest 256 once the one after them is older than any window still to be
    // judged can start: it stays, as the value in force there. A count alone dropped samples a
    // busy run still needed (a /health step at 100 per second fills 512 in 5 s).
    if ((this.at[256] ?? Infinity) < at - SAMPLES_KEPT_MS) {
      this.at.splice(0, 256);
      this.running.splice(0, 256);
      this.finished.splice(0, 256);
      const old = this.cancels.findIndex((t) => t >= (this.at[0] ?? 0));
      this.cancels.splice(0, old < 0 ? this.cancels.length : old);
    }
    this.forget();
  }

  /** Our cancel sent at `at` was accepted. */
  cancelled(at: number): void {
    let i = this.cancels.length;
    this.cancels.push(at);
    while (i > 0 && (this.cancels[i - 1] ?? 0) > at) {
      this.cancels[i] = this.cancels[i - 1] ?? 0;
      i--;
    }
    this.cancels[i] = at;
    this.forget();
  }

  private forget(): void {
    this.last.min.lo = -1;
    this.last.max.lo = -1;
  }

  /**
   * Jobs that may have ended between samples `a` and `b` (indices), freeing their workers: those
   * /health counted finished meanwhile, and our cancels sent meanwhile. Found by the fuzzer: a
   * job failed at the instant a purge went out, between two samples of one worker running; the
   * purge, refused at the base limit, was reported early against a limit of 10.
   */
  private endedBetween(a: number, b: number): number {
    const fa = this.finished[a];
    const fb = this.finished[b];
    const finished = fa === undefined || fb === undefined ? 0 : Math.max(0, fb - fa);
    const from = this.at[a] ?? 0;
    const to = this.at[b] ?? 0;
    return finished + sortedIndex(this.cancels, to, true) - sortedIndex(this.cancels, from, false);
  }

  /** Index of the first sample sent at or after `t` (binary search). */
  private firstAtOrAfter(t: number): number {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.at[mid] ?? 0) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The smallest or largest sample in [from, to], counting the last one before `from` (the value
   * in force when the window opened) and the first one after `to`; when none came after it, 0 for
   * the smallest, and for the largest the samples up to `to`. 0 with no samples at all.
   */
  private extreme(from: number, to: number, kind: 'min' | 'max'): number {
    const lo = Math.max(0, this.firstAtOrAfter(from) - 1);
    let hi = this.firstAtOrAfter(to);
    while (hi < this.at.length && (this.at[hi] ?? 0) <= to) hi++;
    // The fewest: a sample is one instant, so the count in force at `to` is bounded only by the
    // samples on either side of it, and without one after it, by nothing (a job may have ended
    // just before). Found by the lifecycle fuzzer: a purge refused at the base limit, 2, 50 ms
    // after the last sample showed one worker running (limit 10); its job had just ended.
    if (kind === 'min' && hi >= this.at.length) return 0;
    // The last sample sent by `to`, and the first after it.
    const inForce = hi - 1;
    // The most, likewise: a worker may have taken a job just after the last sample before `to`.
    // Found by the fuzzer too: four purges accepted 340 ms to 980 ms after a sample showed no
    // worker running, while the one after showed one (limit 10), were reported over the base
    // limit 2. Without a sample after `to` the largest stays the one in force (a run's last
    // second would otherwise never be judged).
    if (hi < this.at.length) hi++;
    const last = this.last[kind];
    if (last.lo === lo && last.hi === hi) return last.value;
    let out: number | undefined;
    for (let i = lo; i < hi; i++) {
      const v = this.running[i] ?? 0;
      out = out === undefined ? v : kind === 'min' ? Math.min(out, v) : Math.max(out, v);
    }
    last.lo = lo;
    last.hi = hi;
    // The fewest, less the jobs that may have ended between the sample in force and the next.
    const ended = kind === 'min' && inForce >= 0 && hi > inForce + 1 ? this.endedBetween(inForce, hi - 1) : 0;
    last.value = Math.max(0, (out ?? 0) - ended);
    return last.value;
  }

  min(from: number, to: number): number {
    return this.extreme(from, to, 'min');
  }

  max(from: number, to: number): number {
    return this.extreme(from, to, 'max');
  }
}

/**
 * A request that got no answer may still have been read, and counted, by the service: one cut by a
 * reset or a timeout went out on an open connection. Only a refused connection, a name that did
 * not resolve or a failed TLS handshake kept it from the service for sure.
 */
function mayHaveArrived(r: ExchangeRecord): boolean {
  const kind = r.error?.kind;
  return kind !== undefined && kind !== 'refused' && kind !== 'dns' && kind !== 'tls';
}

/**
 * Retry-After in seconds from `nowWallMs`: delay-seconds, or an HTTP date in the IMF-fixdate form
 * senders must use (RFC 9110, 5.6.7). `Date.parse` alone also reads "1.5", "-1" or "in 5" as dates
 * long past, so a date must read back as itself.
 */
export function retryAfterSeconds(value: string, nowWallMs: number): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date) || new Date(date).toUTCString() !== trimmed) return undefined;
  return Math.max(0, (date - nowWallMs) / 1000);
}

/** Whether a request of a rate-limited operation counts against its limit. */
function counted(r: ExchangeRecord, op: QueueOperation): boolean {
  if (r.status === undefined && !mayHaveArrived(r)) return false;
  // Probes with missing or wrong keys are refused before any limit is counted.
  if (r.req?.auth === 'missing' || r.req?.auth === 'wrong') return false;
  // A row covers its operation's method only: GET /openai/v1/models is not in the table.
  return r.method === QUEUE_OPERATION_CONTRACTS[op].method;
}

function outcomeOf(status: number | undefined): SendOutcome {
  if (status === 429) return SendOutcome.Throttled;
  return status !== undefined && status >= 200 && status < 300 ? SendOutcome.Accepted : SendOutcome.Other;
}

/**
 * `ratelimit.retry-after` for a 429 without a Retry-After, or with one that is neither seconds nor
 * an HTTP date (IMF-fixdate). A readable one is judged with the window (`retryAfterTooLong`): each 429 once.
 */
function judgeRetryAfterForm(r: ExchangeRecord, ctx: CheckContext): void {
  // Whether it reads at all: any time will do.
  if (r.retryAfter && retryAfterSeconds(r.retryAfter, 0) !== undefined) return;
  const v = ctx.judge('ratelimit.retry-after', true);
  if (v) {
    ctx.emit(v, {
      record: r,
      message: r.retryAfter
        ? `Retry-After: ${r.retryAfter} is neither seconds nor an HTTP date (IMF-fixdate)`
        : `${r.op} answered 429 without a Retry-After header`,
    });
  }
}

/**
 * `ratelimit.*`: judges each request of a rate-limited operation from the send times of accepted
 * and throttled requests (DESIGN "Checks"), once every earlier send has had time to answer.
 */
export function rateLimitCheck(): Check & { ceilings(): RateCeiling[] } {
  const windows = new Map<QueueOperation, OperationWindow>();
  const running = new RunningSamples();
  let latest = 0;
  const windowFor = (op: QueueOperation): OperationWindow | undefined => {
    const row = RATE_LIMITS[op];
    if (!row) return undefined;
    let w = windows.get(op);
    if (!w) {
      w = new OperationWindow(op, row);
      windows.set(op, w);
    }
    return w;
  };
  return {
    name: 'ratelimit',
    ids: ['ratelimit.early', 'ratelimit.not-enforced', 'ratelimit.retry-after'],
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange') return;
      latest = Math.max(latest, r.endAt);
      const reading = healthReadingOf(r);
      if (reading) running.add(r.sentAt, reading.running, finishedOf(reading));
      if (r.op === 'cancel' && r.status === 200) running.cancelled(r.sentAt);
      if (r.op === 'StartPod' || r.op === 'CreateEndpoint' || !counted(r, r.op)) return;
      const w = windowFor(r.op);
      if (!w) return;
      const throttled = r.status === 429;
      if (throttled) judgeRetryAfterForm(r, ctx);
      w.push(r, outcomeOf(r.status));
      w.judgeUpTo(latest - SETTLE_MS, ctx, running);
    },
    finish(ctx) {
      for (const w of windows.values()) w.judgeUpTo(Infinity, ctx, running);
    },
    ceilings: () => [...windows.values()].map((w) => w.ceiling),
  };
}
