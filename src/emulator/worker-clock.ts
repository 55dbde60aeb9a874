import { sleepOn, systemClock, type Clock } from '../core/clock.js';
import { TimerHeap } from '../core/timer-heap.js';

/**
 * The owner's view of an emulator clock that lives in a worker thread. A real clock is read
 * locally (same rate; only the thread's time origin differs). A manual clock's time is published
 * by the worker into shared memory after each advance, and its timers here fire as the worker
 * reports that time has moved.
 */
export class WorkerClockView implements Clock {
  private readonly heap = new TimerHeap();
  private seq = 0;
  private readonly offset: number;

  constructor(
    private readonly manual: boolean,
    private readonly cell: Float64Array,
    workerTimeOrigin: number,
  ) {
    this.offset = performance.timeOrigin - workerTimeOrigin;
  }

  now(): number {
    return this.manual ? (this.cell[0] ?? 0) : performance.now() + this.offset;
  }

  schedule(ms: number, fn: () => void): () => void {
    if (!this.manual) return systemClock.schedule(ms, fn);
    const timer = { at: this.now() + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.heap.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.manual) return systemClock.sleep(ms, signal);
    return sleepOn((d, fn) => this.schedule(d, fn), ms, signal);
  }

  /** The worker says its manual clock now reads `now`: fire what fell due. */
  moved(now: number): void {
    for (let t = this.heap.peek(); t && t.at <= now; t = this.heap.peek()) {
      this.heap.pop();
      if (t.cancelled) continue;
      t.cancelled = true;
      t.fn();
    }
  }
}
