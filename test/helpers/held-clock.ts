import { sleepOn, type Clock } from '../../src/core/clock.js';

/**
 * A clock whose timers fire only when the test lets the loop run: `hold` moves time with nothing
 * running, as a stopped process or a long GC pause does, so a timer fires late, as it would.
 */
export class HeldClock implements Clock {
  private t = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  now(): number {
    return this.t;
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn((wait, fn) => this.schedule(wait, fn), ms, signal);
  }

  /** Time passes and nothing runs. */
  hold(ms: number): void {
    this.t += ms;
  }

  /** The loop runs for `ms` at its own pace: each timer fires at its time (late ones at once). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let next = this.due(end); next; next = this.due(end)) {
      this.t = Math.max(this.t, next.at);
      this.timers = this.timers.filter((x) => x !== next);
      next.fn();
    }
    this.t = end;
  }

  private due(until: number): { at: number; seq: number; fn: () => void } | undefined {
    let first: { at: number; seq: number; fn: () => void } | undefined;
    for (const x of this.timers)
      if (x.at <= until && (!first || x.at < first.at || (x.at === first.at && x.seq < first.seq))) first = x;
    return first;
  }
}
