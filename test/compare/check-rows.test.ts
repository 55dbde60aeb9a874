import { describe, expect, it } from 'vitest';
import { checkRows, lostChecks } from '../../src/compare/check-rows.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * Check ids lined up between two runs (check-rows.ts): every way a check's violations and coverage
 * can move, and the checks the current run lost.
 */
const BASE = fixture(BASELINE_FILE);

type Violations = Record<string, number>;

function run(checks: string[], violations: Violations, coverage: Record<string, number>): Summary {
  return {
    ...BASE,
    checks,
    coverage,
    violations: Object.entries(violations).map(([id, count]) => ({ id, count, severity: 'error' as const, examples: [] })),
  };
}

const changeOf = (b: Summary, c: Summary, id: string): string | undefined =>
  checkRows(b, c).find((r) => r.id === id)?.change;

describe('checkRows', () => {
  it('violations: new, vanished, still; vanished from a check that judged nothing now is not exercised now', () => {
    const b = run(['a', 'b', 'c', 'd'], { b: 2, c: 1, d: 3 }, { a: 5, b: 5, c: 5, d: 5 });
    const c = run(['a', 'b', 'c', 'd'], { a: 1, c: 4 }, { a: 5, b: 5, c: 5, d: 0 });
    expect(checkRows(b, c)).toEqual([
      { id: 'a', baselineViolations: 0, currentViolations: 1, baselineCoverage: 5, currentCoverage: 5, change: 'new' },
      { id: 'b', baselineViolations: 2, currentViolations: 0, baselineCoverage: 5, currentCoverage: 5, change: 'vanished' },
      { id: 'c', baselineViolations: 1, currentViolations: 4, baselineCoverage: 5, currentCoverage: 5, change: 'still' },
      { id: 'd', baselineViolations: 3, currentViolations: 0, baselineCoverage: 5, currentCoverage: 0, change: 'not exercised now' },
    ]);
  });

  it('vanished where the current run has no coverage at all (checks off, or an old summary)', () => {
    expect(changeOf(run(['x'], { x: 2 }, { x: 5 }), run(['x'], {}, {}), 'x')).toBe('vanished');
  });

  it('no violations: coverage lost, gained, idle in both, or clean', () => {
    const cov = (n: number): Summary => run(['x'], {}, { x: n, other: 1 });
    expect(changeOf(cov(5), cov(0), 'x')).toBe('not exercised now');
    expect(changeOf(cov(0), cov(5), 'x')).toBe('newly exercised');
    expect(changeOf(cov(0), cov(0), 'x')).toBe('not exercised');
    expect(changeOf(cov(5), cov(5), 'x')).toBe('clean');
    // Unknown on one side (no coverage at all there).
    const unknown = run(['x'], {}, {});
    expect(changeOf(cov(0), unknown, 'x')).toBe('not exercised');
    expect(changeOf(unknown, cov(0), 'x')).toBe('not exercised');
    expect(changeOf(unknown, cov(5), 'x')).toBe('clean');
    expect(changeOf(cov(5), unknown, 'x')).toBe('clean');
    expect(changeOf(unknown, unknown, 'x')).toBe('clean');
  });

  it('a check missing from a run that counted coverage judged nothing there', () => {
    const rows = checkRows(run(['x'], {}, { x: 3 }), run(['y'], {}, { y: 3 }));
    expect(rows.map((r) => [r.id, r.baselineCoverage, r.currentCoverage, r.change])).toEqual([
      ['x', 3, 0, 'not exercised now'],
      ['y', 0, 3, 'newly exercised'],
    ]);
  });

  it('every id of either run, sorted: checks, violations and coverage', () => {
    const b = run(['m'], { z: 1 }, { k: 1 });
    const c = run(['a'], { q: 1 }, { d: 1 });
    expect(checkRows(b, c).map((r) => r.id)).toEqual(['a', 'd', 'k', 'm', 'q', 'z']);
  });
});

describe('lostChecks', () => {
  it('checks the baseline ran that the current run did not, and those it no longer exercised, sorted, once', () => {
    const b = run(['z', 'lost', 'kept', 'fired', 'idle'], {}, { z: 4, lost: 1, kept: 1, fired: 1, idle: 1 });
    const c = run(['kept', 'idle', 'z'], { fired: 2 }, { kept: 1, idle: 0, z: 0, fired: 1 });
    const rows = checkRows(b, c);
    expect(rows.filter((r) => r.change === 'not exercised now').map((r) => r.id)).toEqual(['idle', 'lost', 'z']);
    // `fired` did not run now, yet fired: it is still exercised. `lost` is named once.
    expect(lostChecks(rows, b, c)).toEqual(['idle', 'lost', 'z']);
  });

  it('a check the current run did not list, without coverage: lost all the same', () => {
    const b = run(['a', 'b'], {}, {});
    const c = run(['b'], {}, {});
    expect(lostChecks(checkRows(b, c), b, c)).toEqual(['a']);
    expect(lostChecks(checkRows(c, b), c, b)).toEqual([]);
  });

  it('a violation of another check now does not keep a lost one; the lost are sorted', () => {
    const b = run(['z', 'a'], {}, { z: 2 });
    const c = run(['m'], { other: 1 }, { m: 1, z: 0 });
    // z is not exercised now (coverage 0, found among the rows); a judged nothing in either run but
    // was not run now (found among the baseline's checks, after z): sorted, a comes first.
    expect(lostChecks(checkRows(b, c), b, c)).toEqual(['a', 'z']);
  });
});
