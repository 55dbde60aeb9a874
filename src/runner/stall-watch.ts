import type { Clock } from '../core/clock.js';
import { RECORD_VERSION, type ExchangeRecord, type StallRecord } from '../core/record.js';

/**
 * Tells a stalled target from a slow one: when requests have waited `stallAfterMs` without any
 * answer from the target (a status line; errors and timeouts are not answers), a stall begins at
 * the first of them; it ends at the next answer or the run's end, as one `stall` record.
 */
export class StallWatch {
  private inFlight = 0;
  /** The first request since the last answer; undefined while the target keeps up. */
  private waitingSince: number | undefined;
  private stallStart: number | undefined;
  private peak = 0;
  /**
   * Requests that ended without an answer since the last answer, by error kind; undefined while
   * none did, so the answers that reset it (nearly every request) allocate nothing.
   */
  private failed: Record<string, number> | undefined;
  private cancelTick: (() => void) | undefined;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly stallAfterMs: number,
    private readonly emit: (r: StallRecord) => void,
    private readonly nextSeq: () => number,
    /** How long jobstorm's own loop had not run at `now` (core/loop-heartbeat.ts). */
    private readonly loopGapAt: (now: number) => number = () => 0,
  ) {
    this.tick();
  }

  get stalled(): boolean {
    return this.stallStart !== undefined;
  }

  /** Called once when a stall begins (the wind-down stops waiting on a target that will not answer). */
  onStall(listener: () => void): void {
    this.listeners.push(listener);
  }

  sent(): void {
    this.inFlight++;
    if (this.waitingSince === undefined) {
      this.waitingSince = this.clock.now();
      this.peak = 0;
    }
    this.peak = Math.max(this.peak, this.inFlight);
  }

  exchange(r: ExchangeRecord): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (r.status === undefined) {
      // An interrupt or the wind-down's end cut it: jobstorm's doing, not the target's.
      if (r.error !== undefined && r.error.kind !== 'aborted') {
        this.failed ??= {};
        this.failed[r.error.kind] = (this.failed[r.error.kind] ?? 0) + 1;
      }
      return;
    }
    this.end(r.firstByteAt ?? r.endAt);
    this.waitingSince = this.inFlight > 0 ? this.clock.now() : undefined;
    this.peak = this.inFlight;
    this.failed = undefined;
  }

  /** Ends the watch: a stall still going on is reported up to now. */
  close(): void {
    this.cancelTick?.();
    this.cancelTick = undefined;
    this.end(this.clock.now());
  }

  private readonly tick = (): void => {
    const now = this.clock.now();
    // jobstorm's own loop was just held (stopped, a long GC pause): the answers that came in
    // meanwhile may be read only after this tick. Its silence is not the target's.
    const held = this.loopGapAt(now) > 0;
    // In flight or failed without an answer (a dead target refuses at once): either way, waiting.
    if (
      !held &&
      this.stallStart === undefined &&
      this.waitingSince !== undefined &&
      now - this.waitingSince >= this.stallAfterMs
    ) {
      this.stallStart = this.waitingSince;
      for (const l of this.listeners) l();
    }
    this.cancelTick = this.clock.schedule(Math.min(250, this.stallAfterMs / 4), this.tick);
  };

  private end(at: number): void {
    if (this.stallStart === undefined) return;
    const start = this.stallStart;
    this.stallStart = undefined;
    this.emit({
      v: RECORD_VERSION,
      type: 'stall',
      seq: this.nextSeq(),
      at: start,
      durationMs: Math.max(0, Math.round(at - start)),
      inFlight: this.peak,
      ...(this.failed ? { failed: { ...this.failed } } : {}),
    });
  }
}
