import type { Meeting, StartTogether } from './meeting.js';
import type { EpochClock } from '../../core/clock.js';
import { sleepUntil, wallClockOf, type WallClock } from './wall-clock.js';

/**
 * `--start-at <instant>`: every shard was given the same instant (a CI matrix computes it in an
 * earlier step) and starts its schedule then. No folder is shared, so shards cannot stop each
 * other: each one runs its share to its own end.
 */
export class StartInstant implements StartTogether {
  readonly via = 'start-at' as const;

  private readonly clock: WallClock;

  /** `clock`: the owner's (the CLI's is the system's). */
  constructor(
    private readonly atMs: number,
    clock: EpochClock,
  ) {
    this.clock = wallClockOf(clock);
  }

  async meet(signal: AbortSignal): Promise<Meeting> {
    await sleepUntil(this.clock, this.atMs, signal);
    if (signal.aborted)
      return { kind: 'halt', exit: 'interrupted', message: 'interrupted before the start; nothing was sent' };
    return {
      kind: 'start',
      via: 'start-at',
      plannedMs: this.atMs,
      atMs: Math.max(this.atMs, this.clock.now()),
    };
  }

  watch(): () => void {
    return () => undefined;
  }

  stopOthers(): Promise<void> {
    return Promise.resolve();
  }

  finish(): Promise<void> {
    return Promise.resolve();
  }
}
