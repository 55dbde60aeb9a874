import { describe, expect, it } from 'vitest';
import { evaluateThresholds } from '../../src/report/threshold-evaluation.js';
import { compare, parseThresholds, type Comparator } from '../../src/report/threshold.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/*
 * Issue 39: a measured value exactly on a threshold's target, and one step either side, for every
 * comparator. `<` read as `<=` (or any other off-by-one) passes a value it must fail, or the reverse.
 */

/** [below, on, above] the target: whether the threshold holds. */
const HOLDS: Record<Comparator, readonly [boolean, boolean, boolean]> = {
  '<': [true, false, false],
  '<=': [true, true, false],
  '>': [false, false, true],
  '>=': [false, true, true],
  '==': [false, true, false],
  '!=': [true, false, true],
};
const COMPARATORS = Object.keys(HOLDS) as Comparator[];

describe('a threshold on its target', () => {
  it.each(COMPARATORS)('compare(value %s target) below, on and above the target', (c) => {
    expect([compare(9, c, 10), compare(10, c, 10), compare(11, c, 10)]).toEqual(HOLDS[c]);
    // Fractions, where an off-by-one is not a whole step away.
    expect([compare(0.0099, c, 0.01), compare(0.01, c, 0.01), compare(0.0101, c, 0.01)]).toEqual(HOLDS[c]);
  });

  it.each(COMPARATORS)('a run measured exactly on the target of "%s" is judged by the comparator', (c) => {
    // The fixture's run has 7 violations: the value sits above, on and below targets 6, 7 and 8.
    const [above, on, below] = evaluateThresholds(
      parseThresholds([`count(violations) ${c} 6`, `count(violations) ${c} 7`, `count(violations) ${c} 8`]),
      fixtureSummary(),
    );
    expect([below?.value, on?.value, above?.value]).toEqual([7, 7, 7]);
    expect([below?.ok, on?.ok, above?.ok]).toEqual(HOLDS[c]);
  });

  it.each(COMPARATORS)('a rate exactly on its target (a fraction, not a whole number) for "%s"', (c) => {
    const s = fixtureSummary();
    const [rate] = evaluateThresholds(parseThresholds(['rate(429) > 0']), s);
    const exact = rate?.value ?? Number.NaN;
    const [on] = evaluateThresholds(parseThresholds([`rate(429) ${c} ${String(exact)}`]), s);
    expect(on?.value).toBe(exact);
    expect(on?.ok).toBe(HOLDS[c][1]);
  });
});
