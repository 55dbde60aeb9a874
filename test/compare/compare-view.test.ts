import { describe, expect, it } from 'vitest';
import type { Comparison, DeltaRow, Significance } from '../../src/compare/compare-data.js';
import {
  checkCells,
  checksLine,
  confidenceText,
  correctedAwayText,
  formatChange,
  gateCells,
  headline,
  headlineLines,
  intervalText,
  runLine,
  untestedText,
  verdictMark,
} from '../../src/compare/compare-view.js';
import { fixtureComparison } from './fixtures/compare-fixture.js';

/*
 * The words shared by every rendering of a comparison (compare-view.ts), on hand-laid rows: each
 * branch of a row's mark, of the headline's caveats and of the lines under it.
 */
const CMP = fixtureComparison();

function sig(p: number, family: 'table' | 'gates' = 'table', tests = 3): Significance {
  return {
    method: 'per-second bootstrap',
    ci: [-2, 5],
    p: p / 2,
    confidence: 1 - p / 2,
    corrected: { family, tests, p, confidence: 1 - p },
  };
}

function row(over: Partial<DeltaRow> = {}): DeltaRow {
  return {
    group: 'run',
    metric: 'p50(run)',
    unit: 'ms',
    baseline: 100,
    current: 150,
    delta: 50,
    relative: 0.5,
    direction: 'worse',
    significance: null,
    significant: false,
    significantAlone: false,
    large: false,
    untested: null,
    ...over,
  };
}

const of = (deltas: DeltaRow[], over: Partial<Comparison> = {}): Comparison => ({
  ...CMP,
  deltas,
  gates: [],
  regressions: [],
  improvements: [],
  ...over,
});

describe('cells', () => {
  it('a change with its sign, n/a without one; a change of a share in percentage points', () => {
    expect(formatChange(null, 'ms')).toBe('n/a');
    expect(formatChange(0, 'ms')).toBe('0');
    expect(formatChange(12, 'count')).toBe('+12');
    expect(formatChange(-12, 'count')).toBe('−12');
    expect(formatChange(0.15, 'ratio')).toBe('+15.0 pp');
    expect(formatChange(-0.05, 'ratio')).toBe('−5.00 pp');
  });

  it('an interval only with one; the corrected confidence, marked when gated', () => {
    expect(intervalText(null, 'count')).toBe('');
    expect(intervalText({ ...sig(0.1), ci: null }, 'count')).toBe('');
    expect(intervalText(sig(0.1), 'count')).toBe('−2 … +5');
    expect(confidenceText(null)).toBe('');
    expect(confidenceText(sig(0.1))).toBe('90.0%');
    expect(confidenceText(sig(0.1, 'gates'))).toBe('90.0% gated');
  });

  it("each row's mark", () => {
    const alone = { significantAlone: true, significant: false };
    expect(verdictMark(row({ ...alone, direction: 'worse' }))).toBe('regression alone, not after correction');
    expect(verdictMark(row({ ...alone, direction: 'better' }))).toBe('improvement alone, not after correction');
    expect(verdictMark(row({ ...alone, direction: 'changed' }))).toBe('');
    const untested = { reason: 'r', runMs: null };
    expect(verdictMark(row({ large: true, untested }))).toBe('large, not tested');
    expect(verdictMark(row({ large: true }))).toBe('');
    expect(verdictMark(row({ untested }))).toBe('');
    expect(verdictMark(row({ significant: true, direction: 'worse' }))).toBe('regression');
    expect(verdictMark(row({ significant: true, direction: 'better' }))).toBe('improvement');
    expect(verdictMark(row({ significant: true, direction: 'changed' }))).toBe('changed');
  });
});

describe('check and gate cells', () => {
  it('a coverage not known is blank; a clean check has no mark', () => {
    const base = { id: 'x', baselineViolations: 0, currentViolations: 2, baselineCoverage: null, currentCoverage: 7 };
    expect(checkCells({ ...base, change: 'new' })).toEqual(['x', '0', '2', '', '7', 'new']);
    expect(checkCells({ ...base, baselineCoverage: 0, change: 'clean' })).toEqual(['x', '0', '2', '0', '7', '']);
  });

  it('a gate without data on a side says so', () => {
    const [gate] = CMP.gates;
    if (!gate) throw new Error('fixture');
    expect(gateCells({ ...gate, baseline: null }).slice(0, 4)).toEqual([gate.status, gate.expression, 'no data', gateCells(gate)[3]]);
  });
});

describe('lines', () => {
  it('a run: merged shards and a target URL are named', () => {
    const run = { ...CMP.baseline, targetKind: 'url' as const, target: 'http://svc', shards: ['1/2', '2/2'], durationMs: 12_345, offeredRate: 4.56 };
    expect(runLine(run)).toBe(`${run.id} (${run.start}, http://svc, 12.3 s, 4.6 offered/s, 2 shards merged)`);
    expect(runLine({ ...run, shards: [], targetKind: 'emulator' })).toBe(`${run.id} (${run.start}, embedded emulator, 12.3 s, 4.6 offered/s)`);
  });

  it('the checks line: one check, none idle', () => {
    const clean = CMP.checks.slice(0, 1).map((c) => ({ ...c, change: 'clean' as const }));
    expect(checksLine({ ...CMP, checks: clean })).toBe('1 check clean in both runs (exercised, no violation).');
    expect(checksLine({ ...CMP, checks: [] })).toBe('0 checks clean in both runs (exercised, no violation).');
  });

  it('an untested change: no factor for a count, no run length when none would do', () => {
    const count = row({ metric: 'count(run)', unit: 'count', baseline: 10, current: 40, untested: { reason: 'an exact count', runMs: null } });
    expect(untestedText(count)).toBe('count(run) 10 → 40, not tested: an exact count');
    const p99 = row({ baseline: 10, current: 40, untested: { reason: 'too few', runMs: 61_000 } });
    expect(untestedText(p99)).toBe(
      'p50(run) 10.0ms → 40.0ms, ×4.0, not tested: too few; a measured run of at least 61 s (31 windows of 2 s) would test it',
    );
    expect(untestedText(row({ baseline: 0, current: 40, untested: null }))).toBe('p50(run) 0µs → 40.0ms, not tested: not resampled');
    // A side without data: no factor.
    expect(untestedText(row({ baseline: null, current: 40, untested: null }))).toBe('p50(run) no data → 40.0ms, not tested: not resampled');
    expect(untestedText(row({ baseline: 40, current: null, untested: null }))).toBe('p50(run) 40.0ms → no data, not tested: not resampled');
  });
});

describe('the headline', () => {
  it('regressions and improvements, each named; nothing to caveat', () => {
    const cmp = of([row({ significant: true, significance: sig(0.01) })], {
      regressions: ['p50(run) (+50.0%)'],
      improvements: ['p90(run) (−20.0%)'],
    });
    expect(headline(cmp)).toBe(
      'significant regressions: p50(run) (+50.0%); significant improvements: p90(run) (−20.0%) (at 95% confidence, Holm-corrected over 3 resampled rows; time changes under 5.00% count as noise).',
    );
  });

  it('the families counted from the corrections: the largest count of each, gated apart', () => {
    const cmp = of([row({ significance: sig(0.5, 'table', 1) }), row({ significance: sig(0.5, 'table', 4) })], {
      gates: [{ ...CMP.gates[0], significance: sig(0.5, 'gates', 2) } as Comparison['gates'][number]],
    });
    expect(headline(cmp)).toBe(
      'No significant change (at 95% confidence, Holm-corrected over 4 resampled rows and, apart, over 2 gated metrics; time changes under 5.00% count as noise).',
    );
    expect(headline(of([]))).toBe(
      'No significant change (at 95% confidence, Holm-corrected over 0 resampled rows; time changes under 5.00% count as noise).',
    );
  });

  it('two changes corrected away, both kinds: their own, they are, they may be', () => {
    const worse = row({ significantAlone: true, significance: sig(0.2) });
    const better = row({ metric: 'p90(run)', significantAlone: true, direction: 'better', delta: -50, relative: -0.5, current: 50, significance: sig(0.2) });
    const changed = row({ metric: 'rps(run)', significantAlone: true, direction: 'changed', significance: sig(0.2) });
    const lines = headlineLines(of([worse, better, changed]));
    expect(lines[0]).toMatch(
      /^No tested change is significant \(.*\); 2 changes \(regression, improvement\) significant on their own are not after the correction, so not called significant, though they may be real:$/,
    );
    expect(lines.slice(1)).toEqual([
      'regression p50(run) 100ms → 150ms (+50.0%): confidence 90.0% alone, 80.0% Holm-corrected over 3 rows, under 95%',
      'improvement p90(run) 100ms → 50.0ms (−50.0%): confidence 90.0% alone, 80.0% Holm-corrected over 3 rows, under 95%',
    ]);
  });

  it('corrected among the gated metrics, or over one row: the family named as such', () => {
    const r = row({ significantAlone: true, significance: sig(0.2, 'gates', 2) });
    expect(correctedAwayText(r, 0.95)).toBe(
      'regression p50(run) 100ms → 150ms (+50.0%): confidence 90.0% alone, 80.0% Holm-corrected over 2 gated metrics, under 95%',
    );
    expect(correctedAwayText(row({ significance: sig(0.2, 'gates', 1) }), 0.9)).toMatch(/over 1 gated metric, under 90%$/);
    expect(correctedAwayText(row({ significance: sig(0.2, 'table', 1) }), 0.95)).toMatch(/over 1 row, under 95%$/);
  });

  it('a change corrected away without a significance still names itself; one kind only', () => {
    const lines = headlineLines(of([row({ significantAlone: true, delta: 0, relative: 0 })]));
    expect(lines[0]).toMatch(/; 1 change \(regression\) significant on its own is not after the correction, so not called significant, though it may be real:$/);
    expect(lines[1]).toBe('regression p50(run) 100ms → 150ms');
  });

  it('large changes not tested: the longest run that would test them, or only those a longer run can', () => {
    const a = row({ large: true, untested: { reason: 'a', runMs: 24_000 } });
    const b = row({ metric: 'p90(run)', large: true, untested: { reason: 'b', runMs: 130_000 } });
    const never = row({ metric: 'max(run)', large: true, untested: { reason: 'c', runMs: null } });
    expect(headline(of([a, b]))).toMatch(
      /; 2 large changes could not be tested, and untested is not "no change"; a measured run of at least 130 s \(44 windows of 3 s\) would test them:$/,
    );
    expect(headline(of([a, never]))).toMatch(
      /; 2 large changes could not be tested, and untested is not "no change"; a measured run of at least 24 s \(24 windows of 1 s\) would test those a longer run can:$/,
    );
    expect(headline(of([never]))).toMatch(/; 1 large change could not be tested, and untested is not "no change":$/);
    // Not large, or tested: no caveat.
    expect(headline(of([row({ untested: { reason: 'a', runMs: 1000 } })]))).toMatch(/^No significant change/);
    expect(headline(of([row({ large: true, untested: null })]))).toMatch(/^No significant change/);
  });
});
