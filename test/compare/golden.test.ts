import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCompareJunit } from '../../src/compare/compare-junit.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';

/**
 * Golden files: the exact text users see, from two saved summaries. Regenerate after an intended
 * change with `UPDATE_GOLDEN=1 npx vitest run test/compare/golden.test.ts` and review the diff.
 */
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const file = fileURLToPath(new URL(`./golden/${name}`, import.meta.url));
  if (update) writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('compare goldens from saved summaries', () => {
  it('compare.json', () => {
    golden('compare.json', `${JSON.stringify(fixtureComparison(), null, 2)}\n`);
  });

  it('compare.md', () => {
    golden('compare.md', renderCompareMarkdown(fixtureComparison()));
  });

  it('compare-junit.xml', () => {
    golden('compare-junit.xml', renderCompareJunit(fixtureComparison()));
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
