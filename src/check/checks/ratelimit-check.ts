import { effectiveRateLimit, RATE_LIMITS, RATE_WINDOW_MS, type RateLimit } from '../../../contracts/queue/rate-limits.js';
import type { QueueOperation } from '../../core/operation.js';
import { RECORD_VERSION, type ExchangeRecord, type JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';
import { MinHeap } from '../min-heap.js';

/** Responses can arrive this long after they were sent; judge a request only once all earlier sends are in. */
const SETTLE_MS = 35_000;

interface Entry {
  sentAt: number;
  endAt: number;
  throttled: boolean;
  /** Kept for throttled answers only (their evidence): holding every record 35 s would crowd the heap. */
  record?: ExchangeRecord;
  /** An accepted request's line, for the not-enforced evidence. */
  method?: string;
  path?: string;
}

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

/** Accepted requests of one operation, and running-worker samples, evaluated in send order. */
class OperationWindow {
  private readonly entries: Entry[] = [];
  private next = 0;
  /** First entry still inside the accepted-count window of the entry being judged. */
  private lo = 0;
  private acceptedInWindow = 0;
  private allLo = 0;
  private readonly inFlight = new MinHeap();
  private lastNotEnforced = -Infinity;
  readonly ceiling: RateCeiling;

  constructor(readonly op: QueueOperation, readonly row: RateLimit) {
    this.ceiling = { op, limit: row.perWindow, ...(row.concurrent === undefined ? {} : { concurrent: row.concurrent }), maxAcceptedPerWindow: 0, maxConcurrent: 0, accepted: 0, throttled: 0 };
  }

  push(e: Entry): void {
    // Records arrive by end time; keep them ordered by send time (almost always an append).
    let i = this.entries.length;
    while (i > this.next && (this.entries[i - 1]?.sentAt ?? 0) > e.sentAt) i--;
    this.entries.splice(i, 0, e);
  }

  judgeUpTo(until: number, ctx: CheckContext, running: RunningSamples): void {
    const edge = ctx.tolerances.windowEdgeMs;
    while (this.next < this.entries.length) {
      const e = this.entries[this.next];
      if (!e || e.sentAt > until) break;
      // Accepted count in [sentAt - window + edge, sentAt]: strict, for not-enforced.
      while (this.lo < this.next) {
        const old = this.entries[this.lo];
        if (!old || old.sentAt >= e.sentAt - RATE_WINDOW_MS + edge) break;
        if (!old.throttled) this.acceptedInWindow--;
        this.lo++;
      }
      // All requests in (sentAt - window - edge, sentAt]: generous, for early.
      while (this.allLo < this.next && (this.entries[this.allLo]?.sentAt ?? 0) <= e.sentAt - RATE_WINDOW_MS - edge) this.allLo++;
      const allInWindow = this.next - this.allLo;
      while (this.inFlight.size > 0 && (this.inFlight.peek() ?? Infinity) <= e.sentAt) this.inFlight.pop();
      const concurrent = this.inFlight.size;
      const rpw = ctx.run.requestsPerWorker;
      const from = e.sentAt - RATE_WINDOW_MS;
      if (e.throttled) {
        this.ceiling.throttled++;
        const low = effectiveRateLimit(this.row.perWindow, running.min(from, e.sentAt), rpw ?? 0);
        const under = 1 - ctx.tolerances.rateUnderrun;
        const windowFree = allInWindow < low * under - 1;
        const concurrencyFree = this.row.concurrent === undefined || concurrent < this.row.concurrent * under - 1;
        if (windowFree && concurrencyFree && e.record) {
          ctx.emit({ id: 'ratelimit.early', record: e.record, message: `${this.op} got 429 with ${String(allInWindow)} requests in the last 10 s (effective limit ${String(low)}) and ${String(concurrent)} in flight${this.row.concurrent === undefined ? '' : ` (cap ${String(this.row.concurrent)})`}` });
        }
        this.retryAfterTooLong(e, concurrent, ctx);
      } else {
        this.ceiling.accepted++;
        this.acceptedInWindow++;
        this.inFlight.push(e.endAt);
        this.ceiling.maxAcceptedPerWindow = Math.max(this.ceiling.maxAcceptedPerWindow, this.acceptedInWindow);
        this.ceiling.maxConcurrent = Math.max(this.ceiling.maxConcurrent, this.inFlight.size);
        this.notEnforced(e, ctx, running, rpw);
      }
      this.next++;
    }
    this.compact();
  }

  private notEnforced(e: Entry, ctx: CheckContext, running: RunningSamples, rpw: number | undefined): void {
    const maxRunning = running.max(e.sentAt - RATE_WINDOW_MS, e.sentAt);
    // Without requestsPerWorker the dynamic limit is unknown once workers run: nothing to judge.
    if (rpw === undefined && maxRunning > 0) return;
    const high = effectiveRateLimit(this.row.perWindow, maxRunning, rpw ?? 0);
    const over = 1 + ctx.tolerances.rateOverrun;
    if (this.acceptedInWindow > high * over + 1 && e.sentAt - this.lastNotEnforced >= RATE_WINDOW_MS) {
      this.lastNotEnforced = e.sentAt;
      // The accepted request's own record was not kept (see Entry); its line is enough evidence.
      const record: ExchangeRecord = { v: RECORD_VERSION, type: 'exchange', seq: 0, op: this.op, method: e.method ?? 'POST', path: e.path ?? '', intendedAt: e.sentAt, sentAt: e.sentAt, endAt: e.endAt, status: 200, reqBytes: 0, resBytes: 0 };
      ctx.emit({ id: 'ratelimit.not-enforced', record, message: `${this.op} accepted ${String(this.acceptedInWindow)} requests within 10 s; the effective limit is ${String(high)}` });
    }
  }

  private retryAfterTooLong(e: Entry, concurrent: number, ctx: CheckContext): void {
    const r = e.record;
    if (!r?.retryAfter) return;
    const seconds = retryAfterSeconds(r.retryAfter, ctx.run.startedAtMs + r.endAt);
    const atCap = this.row.concurrent !== undefined && concurrent >= this.row.concurrent * (1 - ctx.tolerances.rateUnderrun) - 1;
    // A sliding 10 s window always frees a slot within 10 s; only a full concurrency cap can take longer.
    if (seconds !== undefined && !atCap && seconds * 1000 > RATE_WINDOW_MS + ctx.tolerances.clockSkewMs) {
      ctx.emit({ id: 'ratelimit.retry-after', record: r, message: `Retry-After: ${r.retryAfter} (${String(seconds)} s) cannot be true: a 10 s window frees a slot within 10 s` });
    }
  }

  /** Drops judged entries that no later window can reach. */
  private compact(): void {
    const drop = Math.min(this.lo, this.allLo);
    if (drop > 4096) {
      this.entries.splice(0, drop);
      this.next -= drop;
      this.lo -= drop;
      this.allLo -= drop;
    }
  }
}

/** Running-worker counts from /health samples, as a step function of send time. */
class RunningSamples {
  private readonly samples: { at: number; running: number }[] = [];

  add(at: number, running: number): void {
    this.samples.push({ at, running });
    if (this.samples.length > 512) this.samples.splice(0, 256);
  }

  private valuesIn(from: number, to: number): number[] {
    const out: number[] = [];
    let before: number | undefined;
    for (const s of this.samples) {
      if (s.at < from) before = s.running;
      else if (s.at <= to) out.push(s.running);
    }
    if (before !== undefined) out.push(before);
    return out;
  }

  min(from: number, to: number): number {
    const v = this.valuesIn(from, to);
    return v.length ? Math.min(...v) : 0;
  }

  max(from: number, to: number): number {
    const v = this.valuesIn(from, to);
    return v.length ? Math.max(...v) : 0;
  }
}

export function retryAfterSeconds(value: string, nowWallMs: number): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowWallMs) / 1000);
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
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange') return;
      latest = Math.max(latest, r.endAt);
      if (r.op === 'health' && r.status === 200) {
        const workers = (r.body as { workers?: { running?: unknown } } | undefined)?.workers;
        if (typeof workers?.running === 'number') running.add(r.sentAt, workers.running);
      }
      if (r.status === undefined || r.op === 'StartPod' || r.op === 'CreateEndpoint') return;
      // Probes with missing or wrong keys are refused before any limit is counted.
      if (r.req?.auth === 'missing' || r.req?.auth === 'wrong') return;
      const w = windowFor(r.op);
      if (!w) return;
      const throttled = r.status === 429;
      if (throttled && !r.retryAfter) {
        ctx.emit({ id: 'ratelimit.retry-after', record: r, message: `${r.op} answered 429 without a Retry-After header` });
      } else if (throttled && r.retryAfter && retryAfterSeconds(r.retryAfter, ctx.run.startedAtMs + r.endAt) === undefined) {
        ctx.emit({ id: 'ratelimit.retry-after', record: r, message: `Retry-After: ${r.retryAfter} is neither seconds nor an HTTP date` });
      }
      w.push(throttled ? { sentAt: r.sentAt, endAt: r.endAt, throttled, record: r } : { sentAt: r.sentAt, endAt: r.endAt, throttled, method: r.method, path: r.path });
      w.judgeUpTo(latest - SETTLE_MS, ctx, running);
    },
    finish(ctx) {
      for (const w of windows.values()) w.judgeUpTo(Infinity, ctx, running);
    },
    ceilings: () => [...windows.values()].map((w) => w.ceiling),
  };
}
