import type { Clock } from './clock.js';

/** How often the heartbeat notes the time; a gap of two beats or more is a loop held up. */
const BEAT_MS = 100;

/**
 * When jobstorm's own event loop last ran. An answer is stamped when a callback gets to read it,
 * and a loop that was held up (a stopped or starved process, a long GC pause, a laptop asleep)
 * reads late what came in long before: a /runsync answered in 900 ms was read 3.9 s after it was
 * sent when the process was stopped for 3 s. An answer read after a gap may have come in at any
 * time in it. Which runs first once the loop is back, the I/O that woke it or the timers that are
 * due, depends on where it stopped (a poll cut short by SIGCONT returns to the timers first), so
 * both are covered: a gap since the last beat, or a beat that came late, until the next one.
 */
export class LoopHeartbeat {
  private last: number;
  /** The beat before the last one, when the last one came late: the loop was held since then. */
  private heldSince: number | undefined;
  private cancel: (() => void) | undefined;

  constructor(private readonly clock: Clock) {
    this.last = clock.now();
    this.cancel = clock.schedule(BEAT_MS, this.beat);
  }

  /**
   * How long before `now` the answer read now may have come in, beyond the loop's own beat: the
   * time since the loop last ran freely, when it was held two beats or more; 0 otherwise.
   */
  gapAt(now: number): number {
    if (now - this.last >= 2 * BEAT_MS) return now - this.last;
    return this.heldSince === undefined ? 0 : now - this.heldSince;
  }

  close(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  private readonly beat = (): void => {
    const now = this.clock.now();
    this.heldSince = now - this.last >= 2 * BEAT_MS ? this.last : undefined;
    this.last = now;
    this.cancel = this.clock.schedule(BEAT_MS, this.beat);
  };
}
