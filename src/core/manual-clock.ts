import { sleepOn, type EpochClock } from './clock.js';
import { TimerHeap } from './timer-heap.js';

/**
 * A clock that moves only when told to. Timers fire in time order (ties in the order they were
 * set) as `advance` passes them, and `now()` reads each timer's own time while it runs, so code
 * under test sees the same sequence it would see in real time.
 */
export class ManualClock implements EpochClock {
  private current: number;
  private seq = 0;
  private live = 0;
  private working = 0;
  private readonly heap = new TimerHeap();

  /**
   * `epochAtZero`: the wall-clock instant (epoch ms) that `now()` 0 stands for. `readCostMs`: how
   * far each `now()` moves time (0: not at all). On a machine no two readings are equal, and some
   * checks order two exchanges only when one ended strictly before the other was sent; a clock
   * whose reads cost a microsecond keeps that order on a manual clock too. Timers passed by the
   * reads fire at the next `advance`, a little late, as timers do.
   */
  constructor(
    start = 0,
    private readonly epochAtZero = 0,
    private readonly readCostMs = 0,
  ) {
    this.current = start;
  }

  now(): number {
    this.current += this.readCostMs;
    return this.current;
  }

  epochNow(): number {
    return this.epochAtZero + this.now();
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.heap.push(timer);
    this.live++;
    return () => {
      if (timer.cancelled) return;
      timer.cancelled = true;
      this.live--;
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn((d, fn) => this.schedule(d, fn), ms, signal);
  }

  /**
   * Declares `work` under way until it settles (Clock.underWay): a driver moves this clock only
   * while none is. A driver judges what is under way from the requests it sees, and a live export
   * is more than its request: the sender's first loading, its encoding and the promise chains on
   * either side of the exchange run with no request open, and a driver moved time through them
   * (the next flush could find the send still in flight). The work must not wait on this clock
   * itself: time would stand still until a real-time bound of its own ends it.
   */
  underWay(work: Promise<unknown>): void {
    this.working++;
    const settled = (): void => {
      this.working--;
    };
    work.then(settled, settled);
  }

  /** Work declared under way (underWay) that has not settled yet. */
  get workUnderWay(): number {
    return this.working;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot advance a clock by ${String(ms)} ms`);
    const target = this.current + ms;
    for (let t = this.heap.peek(); t && t.at <= target; t = this.heap.peek()) {
      this.heap.pop();
      if (t.cancelled) continue;
      t.cancelled = true;
      this.live--;
      // A timer overdue after a hold fires at the time the hold left, as a late timer does.
      this.current = Math.max(this.current, t.at);
      t.fn();
    }
    // Reads while the timers ran may have moved time past the target already.
    this.current = Math.max(this.current, target);
  }

  /**
   * Time passes and nothing runs, as in a stop-the-world pause of the loop: the timers that fell
   * due meanwhile fire late, at the next `advance` (a driver's `advance(0)` when it sees them due).
   */
  hold(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot hold a clock for ${String(ms)} ms`);
    this.current += ms;
  }

  /**
   * When the next timer falls due (undefined when none waits): what a test driver advances to
   * once the code under test has nothing left to do before then.
   */
  nextDue(): number | undefined {
    for (let t = this.heap.peek(); t; t = this.heap.peek()) {
      if (!t.cancelled) return t.at;
      // A cancelled timer only waits to be dropped; dropping it here keeps the answer exact.
      this.heap.pop();
    }
    return undefined;
  }

  /** Number of timers still waiting; tests use it to see that nothing leaks. */
  get pending(): number {
    return this.live;
  }
}
