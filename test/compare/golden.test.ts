import { describe, expect, it } from 'vitest';
import { expectGolden, goldenName } from '../helpers/golden.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';
import { COMPARE_GOLDEN } from './golden-files.js';

/**
 * Golden files: the exact text users see, from two saved summaries, compared here and never
 * written. After an intended change, `npm run golden:update` regenerates them; review the diff.
 */
describe('compare goldens from saved summaries', () => {
  it.each(COMPARE_GOLDEN.map((g) => [goldenName(g), g] as const))('%s', (_name, g) => {
    expectGolden(g);
  });

  it('the same inputs give the same comparison (seeded resampling)', () => {
    expect(fixtureComparison()).toEqual(fixtureComparison());
  });

  it('says what the fixture shows: slower jobs, a new violation, lost coverage', () => {
    const cmp = fixtureComparison();
    expect(cmp.verdict.status).toBe('failed');
    expect(cmp.regressions.some((r) => r.startsWith('p50(executionTime)'))).toBe(true);
    expect(cmp.gates.map((g) => g.status)).toEqual([
      'passed',
      'failed',
      'passed',
      'passed',
      'failed',
      'inconclusive',
    ]);
    expect(cmp.checks.find((c) => c.id === 'transition.backwards')?.change).toBe('new');
    expect(cmp.checks.find((c) => c.id === 'webhook.delivered')?.change).toBe('not exercised now');
    expect(cmp.verdict.reasons.join('\n')).toMatch(/not exercised now.*webhook\.delivered/);
  });
});
