import { systemClock, type Clock } from '../core/clock.js';
import { errors } from './undici-parts.js';

/** Why our own deadline aborted an exchange; classified as kind `timeout`. */
export class DeadlineError extends Error {
  readonly code = 'JOBSTORM_DEADLINE';

  constructor(timeoutMs: number) {
    super(`request did not finish within ${String(timeoutMs)} ms`);
    this.name = 'TimeoutError';
  }
}

type AbortListener = () => void;

/** Told first when a deadline aborts; a plain object, so an exchange needs no closure for it. */
export interface DeadlineWatcher {
  onDeadline(reason: Error): void;
}

/**
 * One exchange in flight: when it expires, who may abort it, and the abort signal undici watches.
 * It is that signal itself: undici's request() reads only `aborted`, `reason` and one 'abort'
 * listener (lib/core/util.js addAbortListener), and an AbortController plus its EventTarget cost
 * about a tenth of the client's CPU per request.
 */
export class Deadline {
  done = false;
  /** Its place in its queue, counted from the queue's first deadline ever: see DeadlineQueue.finish. */
  seq = 0;
  aborted = false;
  reason: Error | undefined = undefined;
  watcher: DeadlineWatcher | null = null;
  private listener: AbortListener | null = null;
  /** Only if someone ever adds a second listener; undici adds one. */
  private more: AbortListener[] | null = null;

  constructor(
    readonly at: number,
    readonly parent: AbortSignal | undefined,
  ) {}

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.listener === null) this.listener = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.listener === listener) this.listener = null;
    else if (this.more) this.more = this.more.filter((l) => l !== listener);
  }

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const first = this.listener;
    const more = this.more;
    this.listener = null;
    this.more = null;
    const watcher = this.watcher;
    this.watcher = null;
    watcher?.onDeadline(reason);
    first?.();
    if (more) for (const l of more) l();
  }

  /** For undici's `signal` option, which is typed as AbortSignal but duck-typed at run time. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}

/** Stands in the queue for a deadline whose exchange has finished. */
const RELEASED = new Deadline(Infinity, undefined);
RELEASED.done = true;

/**
 * The whole-exchange timeout and the caller's abort, for every request of a client, with one
 * timer instead of one per request. With a fixed timeout, deadlines expire in the order requests
 * start, so a FIFO swept from its head suffices. A caller's signal gets one listener for all the
 * requests it covers (a run-wide signal would otherwise collect thousands of listeners).
 *
 * Deadlines read the run's clock (issue 46): on real time they read performance.now() and a real
 * timer, so on a manual clock a frozen target's /status timed out after ten real seconds while
 * the run's own seconds (its records, its stall, its wind-down) had long passed on the clock.
 */
export class DeadlineQueue {
  private items: Deadline[] = [];
  private head = 0;
  /** The seq of items[0]. */
  private base = 0;
  private cancelTimer: (() => void) | undefined;
  private readonly watched = new WeakSet<AbortSignal>();
  private readonly tickMs: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly clock: Clock = systemClock,
  ) {
    // A tenth of the timeout keeps the overshoot small without waking often.
    this.tickMs = Math.min(250, Math.max(5, Math.floor(timeoutMs / 10)));
  }

  start(parent: AbortSignal | undefined): Deadline {
    const d = new Deadline(this.clock.now() + this.timeoutMs, parent);
    if (parent) {
      if (parent.aborted) d.abort(abortError(parent));
      else if (!this.watched.has(parent)) this.watch(parent);
    }
    d.seq = this.base + this.items.length;
    this.items.push(d);
    // The clock's schedule does not hold the process open, as the unref'd timer it replaced.
    this.cancelTimer ??= this.clock.schedule(this.tickMs, this.sweep);
    return d;
  }

  /**
   * Takes a finished exchange's deadline out of the queue at once. Left for the sweep (every
   * 250 ms, and never past an unfinished one ahead of it), every deadline and what hung from it
   * outlived its exchange by a scavenge or more and was promoted: at 8,400 requests/s about 1 MB/s
   * of old-generation garbage, and the mark-compacts it brought were the run's worst latencies
   * (a sampling heap profile of objects surviving minor GCs; bench/gc-survival.ts).
   */
  finish(d: Deadline): void {
    d.done = true;
    const i = d.seq - this.base;
    if (i >= this.head && i < this.items.length && this.items[i] === d) this.items[i] = RELEASED;
  }

  /** Stops the timer; exchanges still in flight keep their signals. */
  close(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private watch(parent: AbortSignal): void {
    this.watched.add(parent);
    parent.addEventListener(
      'abort',
      () => {
        const reason = abortError(parent);
        for (let i = this.head; i < this.items.length; i++) {
          const d = this.items[i];
          if (d && !d.done && d.parent === parent) d.abort(reason);
        }
      },
      { once: true },
    );
  }

  private readonly sweep = (): void => {
    this.cancelTimer = undefined;
    const now = this.clock.now();
    const items = this.items;
    while (this.head < items.length) {
      const d = items[this.head];
      if (d && !d.done) {
        if (d.at > now) break;
        d.done = true;
        d.abort(new DeadlineError(this.timeoutMs));
      }
      this.head++;
    }
    if (this.head === items.length) {
      this.base += items.length;
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > items.length) {
      this.base += this.head;
      this.items = items.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.items.length) this.cancelTimer = this.clock.schedule(this.tickMs, this.sweep);
  };
}

/** The caller's abort as undici's own error, so records say `aborted` / UND_ERR_ABORTED. */
function abortError(parent: AbortSignal): Error {
  const reason: unknown = parent.reason;
  const detail =
    reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted by caller';
  return new errors.RequestAbortedError(`Request aborted: ${detail}`);
}
