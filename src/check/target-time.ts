import type { ClockRecord, JobstormRecord, RunRecord } from '../core/record.js';

/**
 * Maps our record times onto the target's clock. A target's clock may jump (`clock` records from
 * advance steps) or stand still between jumps (the emulator's manual clock); ttl, retention,
 * timeouts and rate windows are rules of the target's time, so the checks judge in it. Runs with
 * neither see their records unchanged.
 */
export class TargetTime {
  private readonly manual: boolean;
  /** (our time, cumulative advance after it), in time order. */
  private readonly jumps: { at: number; total: number }[] = [];

  constructor(run: RunRecord) {
    this.manual = run.targetClock === 'manual';
  }

  get identity(): boolean {
    return !this.manual && this.jumps.length === 0;
  }

  advance(r: ClockRecord): void {
    const total = (this.jumps[this.jumps.length - 1]?.total ?? 0) + r.advancedMs;
    this.jumps.push({ at: r.at, total });
  }

  /** Target time at our time `t`: advances answered before `t`, plus `t` itself unless the clock is manual. */
  at(t: number): number {
    let total = 0;
    for (let i = this.jumps.length - 1; i >= 0; i--) {
      const j = this.jumps[i];
      if (j && j.at <= t) {
        total = j.total;
        break;
      }
    }
    return (this.manual ? 0 : t) + total;
  }

  /** The record with its times on the target's clock (a copy; the original goes to other sinks). */
  map(r: JobstormRecord): JobstormRecord {
    if (this.identity) return r;
    switch (r.type) {
      case 'exchange': {
        const out = {
          ...r,
          intendedAt: this.at(r.intendedAt),
          sentAt: this.at(r.sentAt),
          endAt: this.at(r.endAt),
        };
        if (r.firstByteAt !== undefined) out.firstByteAt = this.at(r.firstByteAt);
        return out;
      }
      case 'webhook':
        return { ...r, at: this.at(r.at) };
      case 'dropped':
        return { ...r, intendedAt: this.at(r.intendedAt) };
      default:
        return r;
    }
  }
}
