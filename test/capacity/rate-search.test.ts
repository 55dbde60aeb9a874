import { describe, expect, it } from 'vitest';
import type { RatePlan, SearchMode } from '../../src/capacity/capacity-options.js';
import { RateSearch } from '../../src/capacity/rate-search.js';

/** Runs the search against a target whose true capacity is `truth`: a rate passes iff ≤ truth. */
function sequence(
  plan: RatePlan,
  mode: SearchMode,
  truth: number,
  options: { resolution?: number; maxRefinements?: number } = {},
): string[] {
  const search = new RateSearch(plan, mode, options);
  const tried: string[] = [];
  for (let next = search.next(); next; next = search.next()) {
    const passed = next.rate <= truth;
    tried.push(`${next.stage} ${String(next.rate)} ${passed ? 'pass' : 'fail'}`);
    search.report(next.rate, passed);
    if (tried.length > 50) throw new Error('search did not end');
  }
  return tried;
}

describe('RateSearch: which rate to try next', () => {
  it.each<[string, RatePlan, SearchMode, number, string[]]>([
    [
      'geometric steps stop at the first failure',
      { start: 10, factor: 2, max: 1000 },
      'step',
      50,
      ['step 10 pass', 'step 20 pass', 'step 40 pass', 'step 80 fail'],
    ],
    [
      'arithmetic steps',
      { start: 10, increment: 15, max: 1000 },
      'step',
      30,
      ['step 10 pass', 'step 25 pass', 'step 40 fail'],
    ],
    [
      'the last step is clamped to max, and passing it ends the search',
      { start: 10, factor: 2, max: 30 },
      'binary',
      100,
      ['step 10 pass', 'step 20 pass', 'step 30 pass'],
    ],
    [
      'a failing first step ends the search in either mode',
      { start: 10, factor: 2, max: 100 },
      'binary',
      5,
      ['step 10 fail'],
    ],
    ['a start above max begins at max', { start: 500, factor: 2, max: 100 }, 'step', 1000, ['step 100 pass']],
  ])('%s', (_name, plan, mode, truth, expected) => {
    expect(sequence(plan, mode, truth)).toEqual(expected);
  });

  it('binary mode halves the interval until it is narrower than the resolution', () => {
    expect(sequence({ start: 60, factor: 1.5, max: 1000 }, 'binary', 100, { resolution: 0.06 })).toEqual([
      'step 60 pass',
      'step 90 pass',
      'step 135 fail',
      'refine 112.5 fail',
      'refine 101.25 fail',
      'refine 95.63 pass',
    ]);
  });

  it('binary refinement stops after maxRefinements', () => {
    const tried = sequence({ start: 1, factor: 10, max: 1000 }, 'binary', 333, {
      resolution: 0.0001,
      maxRefinements: 3,
    });
    expect(tried.filter((t) => t.startsWith('refine'))).toHaveLength(3);
  });

  it('bounds are the highest pass and the lowest failure', () => {
    const search = new RateSearch({ start: 60, factor: 1.5, max: 1000 }, 'binary', { resolution: 0.06 });
    for (let next = search.next(); next; next = search.next()) search.report(next.rate, next.rate <= 80);
    const { lastPassing, firstFailing } = search.bounds;
    expect(lastPassing).not.toBeNull();
    expect(firstFailing).not.toBeNull();
    expect(lastPassing).toBeLessThanOrEqual(80);
    expect(firstFailing).toBeGreaterThan(80);
    expect(((firstFailing ?? 0) - (lastPassing ?? 1)) / (lastPassing ?? 1)).toBeLessThanOrEqual(0.06);
  });

  it.each<[string, RatePlan]>([
    ['a factor of 1 would never reach max', { start: 10, factor: 1, max: 100 }],
    ['a zero start', { start: 0, factor: 2, max: 100 }],
    ['a negative increment', { start: 10, increment: -1, max: 100 }],
    ['both factor and increment', { start: 10, factor: 2, increment: 5, max: 100 }],
  ])('refuses a plan with %s', (_name, plan) => {
    expect(() => new RateSearch(plan, 'step')).toThrow(RangeError);
  });
});
