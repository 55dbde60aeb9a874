import { describe, expect, it } from 'vitest';
import { factorBetween, factorText, isLarge } from '../../src/compare/large-change.js';

/*
 * "Large" (large-change.ts) on both sides of each of its edges: ×2 exactly, a millisecond apart
 * exactly, one percentage point exactly, three Poisson standard deviations exactly.
 */
const at = (value: number, seconds = 10): { value: number; seconds: number } => ({ value, seconds });

describe('factorBetween', () => {
  it('hi over lo, whichever side is higher; 1 when both are 0, Infinity when only one is', () => {
    expect(factorBetween(2, 8)).toBe(4);
    expect(factorBetween(8, 2)).toBe(4);
    expect(factorBetween(0, 0)).toBe(1);
    expect(factorBetween(0, 5)).toBe(Infinity);
    expect(factorBetween(5, 0)).toBe(Infinity);
    expect(factorBetween(3, 3)).toBe(1);
  });
});

describe('isLarge by unit, on each edge', () => {
  it('times: doubled or halved exactly is large, if a millisecond apart or more', () => {
    expect(isLarge('ms', at(1), at(2))).toBe(true);
    expect(isLarge('ms', at(2), at(1))).toBe(true);
    expect(isLarge('ms', at(1), at(1.99))).toBe(false);
    expect(isLarge('ms', at(0.5), at(1.5))).toBe(true); // exactly 1 ms apart
    expect(isLarge('ms', at(0.5), at(1.4))).toBe(false); // ×2.8, but 0.9 ms apart
    expect(isLarge('ms', at(3), at(3))).toBe(false);
  });

  it('rates per second: doubled or halved exactly is large, however small', () => {
    expect(isLarge('rps', at(10), at(20))).toBe(true);
    expect(isLarge('rps', at(20), at(10))).toBe(true);
    expect(isLarge('rps', at(10), at(19.99))).toBe(false);
    expect(isLarge('rps', at(0.1), at(0.2))).toBe(true);
    expect(isLarge('rps', at(0), at(0))).toBe(false);
    expect(isLarge('rps', at(0), at(1))).toBe(true);
  });

  it('shares: doubled, halved, or a complement doubled or halved, by a percentage point or more', () => {
    expect(isLarge('ratio', at(0.1), at(0.2))).toBe(true); // ×2 exactly
    expect(isLarge('ratio', at(0.2), at(0.1))).toBe(true);
    expect(isLarge('ratio', at(0.1), at(0.19))).toBe(false); // ×1.9, complements ×1.11
    expect(isLarge('ratio', at(0.9), at(0.8))).toBe(true); // failures 10 % to 20 %: the complement doubled
    expect(isLarge('ratio', at(0.8), at(0.9))).toBe(true);
    expect(isLarge('ratio', at(0.9), at(0.81))).toBe(false); // complement ×1.9
    expect(isLarge('ratio', at(0), at(0.01))).toBe(true); // exactly one point
    expect(isLarge('ratio', at(0), at(0.0099))).toBe(false);
    expect(isLarge('ratio', at(0.3), at(0.3))).toBe(false);
    // ×2.25, but half a percentage point apart: a handful of requests.
    expect(isLarge('ratio', at(0.004), at(0.009))).toBe(false);
  });

  it('counts: the rate per second doubled or halved, and beyond three standard deviations, strictly', () => {
    // 9 against 27 in 1 s: 18 apart, exactly 3·√36.
    expect(isLarge('count', at(9, 1), at(27, 1))).toBe(false);
    expect(isLarge('count', at(9, 1), at(28, 1))).toBe(true);
    expect(isLarge('count', at(27, 1), at(9, 1))).toBe(false);
    expect(isLarge('count', at(28, 1), at(9, 1))).toBe(true);
    // In 2 s each: rates 4.5 and 13.5, 9 apart, exactly 3·√(9/4 + 27/4).
    expect(isLarge('count', at(9, 2), at(27, 2))).toBe(false);
    expect(isLarge('count', at(9, 2), at(28, 2))).toBe(true);
    // Far beyond noise, but not doubled: 1000 against 1990 in 10 s.
    expect(isLarge('count', at(1000), at(1990))).toBe(false);
    expect(isLarge('count', at(1000), at(2000))).toBe(true);
    // Runs of different length compare per second.
    expect(isLarge('count', at(100, 10), at(400, 40))).toBe(false);
    expect(isLarge('count', at(100, 10), at(400, 20))).toBe(true);
  });

  it('counts of a run with no measured time are never large', () => {
    expect(isLarge('count', at(0, 0), at(400, 10))).toBe(false);
    expect(isLarge('count', at(400, 10), at(0, 0))).toBe(false);
    expect(isLarge('count', at(400, 10), at(10, -1))).toBe(false);
    expect(isLarge('count', at(10, -1), at(400, 10))).toBe(false);
  });
});

describe('factorText', () => {
  it('current over baseline: whole from ×10, one decimal from ×1, two significant digits below', () => {
    expect(factorText(10, 240)).toBe('×24');
    expect(factorText(10, 100)).toBe('×10');
    expect(factorText(10, 99)).toBe('×9.9');
    expect(factorText(10, 10)).toBe('×1.0');
    expect(factorText(10, 9.9)).toBe('×0.99');
    expect(factorText(100, 4)).toBe('×0.04');
    expect(factorText(3, 1)).toBe('×0.33');
    expect(factorText(0, 5)).toBe('');
  });
});
