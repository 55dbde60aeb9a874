import type { Clock } from '../core/clock.js';
import type { Job } from './job.js';

/**
 * Every live job ordered by `expiresAt` in one indexed min-heap (the job keeps its own index), with
 * a single clock timer for the earliest. A timer per job would cost a closure and a timer handle
 * for each of a million retained jobs; here a job costs one array slot, and moving its deadline
 * (completion, retry, /status?ttl=) is a sift instead of a cancel and reschedule.
 */
export class ExpiryQueue {
  private readonly heap: Job[] = [];
  private armedAt = Infinity;
  private cancelTimer: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    /** Emulator time (ms since start) now. */
    private readonly now: () => number,
    private readonly expire: (job: Job) => void,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** Inserts the job or moves it to its new `expiresAt`. */
  update(job: Job): void {
    if (job.heapIndex < 0) {
      job.heapIndex = this.heap.length;
      this.heap.push(job);
      this.up(job.heapIndex);
    } else {
      this.down(this.up(job.heapIndex));
    }
    this.arm();
  }

  remove(job: Job): void {
    const i = job.heapIndex;
    if (i < 0) return;
    const last = this.heap.pop() as Job;
    job.heapIndex = -1;
    if (last !== job) {
      this.heap[i] = last;
      last.heapIndex = i;
      this.down(this.up(i));
    }
  }

  /** Expires every job due by now; the timer calls it, and so may anyone who wants exactness. */
  sweep(): void {
    const now = this.now();
    for (let top = this.heap[0]; top !== undefined && top.expiresAt <= now; top = this.heap[0]) {
      this.remove(top);
      this.expire(top);
    }
    this.arm();
  }

  close(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.armedAt = Infinity;
  }

  private arm(): void {
    const top = this.heap[0];
    if (top === undefined || top.expiresAt >= this.armedAt) return;
    this.cancelTimer?.();
    this.armedAt = top.expiresAt;
    this.cancelTimer = this.clock.schedule(Math.max(0, top.expiresAt - this.now()), () => {
      this.cancelTimer = undefined;
      this.armedAt = Infinity;
      this.sweep();
    });
  }

  private up(i: number): number {
    const h = this.heap;
    const job = h[i] as Job;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as Job;
      if (parent.expiresAt <= job.expiresAt) break;
      h[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    h[i] = job;
    job.heapIndex = i;
    return i;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = h.length;
    const job = h[i] as Job;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (h[r] as Job).expiresAt < (h[l] as Job).expiresAt ? r : l;
      const child = h[c] as Job;
      if (child.expiresAt >= job.expiresAt) break;
      h[i] = child;
      child.heapIndex = i;
      i = c;
    }
    h[i] = job;
    job.heapIndex = i;
  }
}
