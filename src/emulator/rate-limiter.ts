import {
  RATE_LIMITS,
  RATE_WINDOW_MS,
  effectiveRateLimit,
  type RateLimit,
} from '../../contracts/queue/rate-limits.js';
import type { QueueOperation } from '../core/operation.js';

/**
 * A sliding log of the times requests were admitted: in any window of RATE_WINDOW_MS at most
 * `limit` are admitted, and when one is refused we know exactly when the window admits again (the
 * moment the right entry leaves it), so Retry-After is truthful. A ring buffer of doubles keeps
 * it allocation-free per request.
 */
export class SlidingWindow {
  private times = new Float64Array(256);
  private head = 0;
  private size = 0;

  /** Admits (and records) the request, or returns the ms until the window would admit one. */
  admit(now: number, limit: number): number {
    this.prune(now);
    if (this.size < limit) {
      this.push(now);
      return 0;
    }
    if (limit <= 0) return RATE_WINDOW_MS;
    const k = this.size - limit;
    const t = this.times[(this.head + k) % this.times.length] as number;
    return Math.max(1, t + RATE_WINDOW_MS - now);
  }

  count(now: number): number {
    this.prune(now);
    return this.size;
  }

  private prune(now: number): void {
    const edge = now - RATE_WINDOW_MS;
    const cap = this.times.length;
    while (this.size > 0 && (this.times[this.head] as number) <= edge) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
  }

  private push(t: number): void {
    if (this.size === this.times.length) this.grow();
    this.times[(this.head + this.size) % this.times.length] = t;
    this.size++;
  }

  private grow(): void {
    const next = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.times[(this.head + i) % this.times.length] as number;
    this.times = next;
    this.head = 0;
  }
}

export type Admission =
  { ok: true } | { ok: false; reason: 'rate' | 'concurrency'; retryAfterMs: number; limit: number };

interface OperationLimiter {
  base: RateLimit;
  window: SlidingWindow;
  inFlight: number;
}

/** How the policy has the limiter treat a row (the faithful policy: the table as it is). */
export interface LimiterMode {
  /** Never refuse. */
  off: boolean;
  /** Refuse at half the effective per-window limit. */
  early: boolean;
  /** Multiplies the table's row, rate and concurrency; 1 when absent. */
  scale?: number;
}

/**
 * SPEC "Limits": per endpoint and operation, a rate per 10 s window raised by the dynamic rule
 * (running workers × requests per worker) and a concurrency cap. Operations without a row (retry,
 * health, status-sync) are not limited.
 */
export class EndpointRateLimiter {
  private readonly ops = new Map<QueueOperation, OperationLimiter>();

  constructor(private readonly requestsPerWorker: number) {
    for (const [op, base] of Object.entries(RATE_LIMITS) as [QueueOperation, RateLimit][]) {
      this.ops.set(op, { base, window: new SlidingWindow(), inFlight: 0 });
    }
  }

  /**
   * Admits the request; the caller must `release(op)` when its response is over, if admitted. With
   * `slot: false` the request is counted in the window and refused at a full concurrency cap, but
   * takes no concurrency slot yet: a request still uploading its body takes one with `occupy`
   * once the body is in, so stalled uploads cannot fill the cap.
   */
  admit(op: QueueOperation, now: number, runningWorkers: number, mode: LimiterMode, slot = true): Admission {
    const l = this.ops.get(op);
    if (l === undefined) return OK;
    if (mode.off) {
      if (slot) l.inFlight++;
      return OK;
    }
    const scale = mode.scale ?? 1;
    const full = this.atCap(l, scale);
    if (full !== undefined) return full;
    let limit = effectiveRateLimit(
      Math.floor(l.base.perWindow * scale),
      runningWorkers,
      this.requestsPerWorker,
    );
    if (mode.early) limit = Math.floor(limit / 2);
    const wait = l.window.admit(now, limit);
    if (wait > 0) return { ok: false, reason: 'rate', retryAfterMs: wait, limit };
    if (slot) l.inFlight++;
    return OK;
  }

  /** Takes the concurrency slot of a request admitted with `slot: false`; `release(op)` when over. */
  occupy(op: QueueOperation, mode: LimiterMode): Admission {
    const l = this.ops.get(op);
    if (l === undefined) return OK;
    const full = mode.off ? undefined : this.atCap(l, mode.scale ?? 1);
    if (full !== undefined) return full;
    l.inFlight++;
    return OK;
  }

  release(op: QueueOperation): void {
    const l = this.ops.get(op);
    if (l !== undefined && l.inFlight > 0) l.inFlight--;
  }

  private atCap(l: OperationLimiter, scale: number): Admission | undefined {
    const cap = l.base.concurrent === undefined ? undefined : Math.floor(l.base.concurrent * scale);
    return cap !== undefined && l.inFlight >= cap
      ? { ok: false, reason: 'concurrency', retryAfterMs: 1000, limit: cap }
      : undefined;
  }

  /** Admin view: per operation, requests in the current window and in flight. */
  snapshot(
    now: number,
    runningWorkers: number,
  ): Record<string, { inWindow: number; limit: number; inFlight: number; concurrent: number | null }> {
    const out: Record<
      string,
      { inWindow: number; limit: number; inFlight: number; concurrent: number | null }
    > = {};
    for (const [op, l] of this.ops) {
      out[op] = {
        inWindow: l.window.count(now),
        limit: effectiveRateLimit(l.base.perWindow, runningWorkers, this.requestsPerWorker),
        inFlight: l.inFlight,
        concurrent: l.base.concurrent ?? null,
      };
    }
    return out;
  }
}

const OK: Admission = { ok: true };
