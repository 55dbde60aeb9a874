/**
 * When an iteration's next request is due (DESIGN rule 9): the one place that says so, so latency
 * from the intended start means the same for every step kind.
 *
 * - The first request is due at the arrival.
 * - After a wait of any kind (an `after`, a poll's or a stream's interval, a `sleep`), the next
 *   request is due when the wait was scheduled to end, not when its timer fired: a timer that fires
 *   late because jobstorm's loop was held counts against the request (coordinated omission). A wait
 *   begins when it was due to begin (the arrival or the end of the wait before it), or when the
 *   step got to it after a request; a wait that had run out by then is none.
 * - Otherwise (after a request, a blast, a move of the emulator's clock), the next request is due
 *   when the step gets to it: the one before it had to end first, and the service's answer time is
 *   that request's latency, not the next one's.
 */
export class RequestDue {
  /** The arrival or a wait's scheduled end, until a request takes it or other work voids it. */
  private planned: number | undefined;

  constructor(arrival: number) {
    this.planned = arrival;
  }

  /** A request goes out at `now`: when it was due. The one after it is due when the step gets to it. */
  take(now: number): number {
    const at = this.planned ?? now;
    this.planned = undefined;
    return at;
  }

  /** A wait scheduled to end at `end`, begun at `now`; returns when the next request is due. */
  waitUntil(end: number, now: number): number {
    const begun = this.planned ?? now;
    this.planned = Math.max(begun, end);
    return this.planned;
  }

  /** A wait of `ms` from when it was due to begin; returns when the next request is due. */
  waitFor(ms: number, now: number): number {
    return this.waitUntil((this.planned ?? now) + ms, now);
  }

  /** Work that is not a request (a blast, a move of the emulator's clock) ended: a plan made before it no longer holds. */
  dropPlan(): void {
    this.planned = undefined;
  }
}
