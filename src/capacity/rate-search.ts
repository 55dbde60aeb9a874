import {
  DEFAULT_FACTOR,
  DEFAULT_MAX_REFINEMENTS,
  DEFAULT_RESOLUTION,
  type RatePlan,
} from './capacity-options.js';
import type { SearchMode, SearchStage } from './search-mode.js';

export type { SearchStage } from './search-mode.js';

export interface NextRate {
  rate: number;
  stage: SearchStage;
}

export interface SearchBounds {
  /** Highest rate that passed. */
  lastPassing: number | null;
  /** Lowest rate that failed. */
  firstFailing: number | null;
}

/** Rates are shown to people: two decimals is finer than any arrival process can hold. */
export function roundRate(rate: number): number {
  return Math.round(rate * 100) / 100;
}

/** A plan that never reaches `max` would step for ever; the CLI reports these as usage errors first. */
function assertPlan(p: RatePlan): void {
  const bad: string[] = [];
  if (!(p.start > 0 && Number.isFinite(p.start))) bad.push(`start ${String(p.start)}`);
  if (!(p.max > 0 && Number.isFinite(p.max))) bad.push(`max ${String(p.max)}`);
  if (p.factor !== undefined && !(p.factor > 1 && Number.isFinite(p.factor)))
    bad.push(`factor ${String(p.factor)} (must be above 1)`);
  if (p.increment !== undefined && !(p.increment > 0 && Number.isFinite(p.increment)))
    bad.push(`increment ${String(p.increment)}`);
  if (p.factor !== undefined && p.increment !== undefined) bad.push('both factor and increment');
  if (bad.length) throw new RangeError(`capacity rate plan: ${bad.join(', ')}`);
}

/**
 * Which rate to try next, from the verdicts so far. Pure (no timers, no I/O), so the sequence of
 * rates is tested with tables and the search loop only runs what this says.
 */
export class RateSearch {
  private lastPassing: number | null = null;
  private firstFailing: number | null = null;
  private stage: SearchStage | 'done' = 'step';
  private current: number;
  private refinements = 0;
  private readonly resolution: number;
  private readonly maxRefinements: number;

  constructor(
    private readonly plan: RatePlan,
    private readonly mode: SearchMode,
    options: { resolution?: number; maxRefinements?: number } = {},
  ) {
    assertPlan(plan);
    this.current = roundRate(Math.min(plan.start, plan.max));
    this.resolution = options.resolution ?? DEFAULT_RESOLUTION;
    this.maxRefinements = options.maxRefinements ?? DEFAULT_MAX_REFINEMENTS;
  }

  next(): NextRate | undefined {
    if (this.stage === 'step') return { rate: this.current, stage: 'step' };
    if (this.stage === 'refine') return this.midpoint();
    return undefined;
  }

  report(rate: number, passed: boolean): void {
    if (this.stage === 'done') return;
    if (passed) this.lastPassing = Math.max(this.lastPassing ?? rate, rate);
    else this.firstFailing = Math.min(this.firstFailing ?? rate, rate);
    if (this.stage === 'refine') {
      this.refinements++;
      return;
    }
    if (!passed) {
      // Refining needs a passing rate below the failing one; a failing first step has none.
      this.stage = this.mode === 'binary' && this.lastPassing !== null ? 'refine' : 'done';
      return;
    }
    if (rate >= this.plan.max) {
      this.stage = 'done';
      return;
    }
    const following =
      this.plan.increment !== undefined
        ? rate + this.plan.increment
        : rate * (this.plan.factor ?? DEFAULT_FACTOR);
    this.current = roundRate(Math.min(following, this.plan.max));
  }

  get bounds(): SearchBounds {
    return { lastPassing: this.lastPassing, firstFailing: this.firstFailing };
  }

  private midpoint(): NextRate | undefined {
    const lo = this.lastPassing;
    const hi = this.firstFailing;
    if (
      lo === null ||
      hi === null ||
      this.refinements >= this.maxRefinements ||
      (hi - lo) / lo <= this.resolution
    ) {
      this.stage = 'done';
      return undefined;
    }
    const mid = roundRate((lo + hi) / 2);
    if (mid <= lo || mid >= hi) {
      this.stage = 'done';
      return undefined;
    }
    return { rate: mid, stage: 'refine' };
  }
}
