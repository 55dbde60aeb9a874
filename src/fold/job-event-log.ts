import { JobEvents } from './job-events.js';

/**
 * The fold's results kept for a consumer that reads its records later, in the order they came
 * (the checker, a turn behind: TurnBatch): each push copies the fold's reused object into one of a
 * pool that grows to the most records held at once, so the log allocates nothing per record.
 */
export class JobEventLog {
  private readonly pool: JobEvents[] = [];
  private used = 0;

  get size(): number {
    return this.used;
  }

  push(events: JobEvents): void {
    let slot = this.pool[this.used];
    if (slot === undefined) {
      slot = new JobEvents(events.warmupMs);
      this.pool.push(slot);
    }
    slot.copyFrom(events);
    this.used++;
  }

  /** The events pushed `i`-th since the last `clear`. */
  at(i: number): JobEvents {
    const events = i < this.used ? this.pool[i] : undefined;
    if (events === undefined)
      throw new RangeError(`JobEventLog: no events at ${String(i)} of ${String(this.used)}`);
    return events;
  }

  /** Forgets what was pushed; the pool stays for the next records. */
  clear(): void {
    this.used = 0;
  }
}
