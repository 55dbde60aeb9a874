import { describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/compare/compare-data.js';
import { COMPARE_DEFAULTS, compareRuns, type CompareOptions } from '../../src/compare/comparison.js';
import { parseGates } from '../../src/compare/gate.js';
import { asAnyOther } from '../../src/compare/known-findings.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * compareRuns' verdict (comparison.ts): failed, inconclusive or passed, and every reason it gives,
 * on the two fixture runs changed one field at a time. Few resamples: the verdict is what is asked.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);

function compare(b: Summary, c: Summary, gates: string[] = [], over: Partial<CompareOptions> = {}): Comparison {
  return compareRuns(b, c, {
    baselineSource: 'b',
    currentSource: 'c',
    gates: parseGates(gates.map((expression) => ({ expression, where: 'test' }))),
    resamples: 200,
    ...over,
  });
}

/** The fixture with the current run's checks, coverage and violations: nothing lost, nothing new. */
const quiet = (s: Summary): Summary => ({ ...s, checks: B.checks, coverage: B.coverage, violations: B.violations });
const ended = (s: Summary, status: Summary['verdict']['status']): Summary => ({ ...s, verdict: { ...s.verdict, status } });
const STRETCH = { at: 1000, durationMs: 2000, busy: 0.99, loopDelayP99Ms: 40, latenessP99Ms: 55 };

describe('the verdict of a comparison', () => {
  it('no gates and nothing lost: passed, saying no gates were set', () => {
    const cmp = compare(B, quiet(C));
    expect(cmp.verdict).toEqual({ status: 'passed', reasons: ['no gates set'] });
  });

  it('gates that pass: passed, counting them', () => {
    expect(compare(B, quiet(C), ['delta(count(run)) == 0']).verdict).toEqual({ status: 'passed', reasons: ['1 gate passed'] });
    expect(compare(B, quiet(C), ['delta(count(run)) == 0', 'delta(count(run)) <= 1']).verdict.reasons).toEqual(['2 gates passed']);
  });

  it('a failed gate fails it, before an inconclusive one; each gives its reason, failed first', () => {
    const cmp = compare(B, quiet(C), ['delta(p99(cancel)) < 10%', 'delta(count(status)) == 0']);
    expect(cmp.verdict.status).toBe('failed');
    expect(cmp.verdict.reasons).toEqual([
      `delta(count(status)) == 0: ${cmp.gates[1]?.reason ?? ''}`,
      `delta(p99(cancel)) < 10%: ${cmp.gates[0]?.reason ?? ''}`,
    ]);
    expect(cmp.gates.map((g) => g.status)).toEqual(['inconclusive', 'failed']);
  });

  it('an inconclusive gate alone: inconclusive', () => {
    const cmp = compare(B, quiet(C), ['delta(p99(cancel)) < 10%']);
    expect(cmp.verdict.status).toBe('inconclusive');
    expect(cmp.verdict.reasons).toHaveLength(1);
  });

  it('checks the current run lost: inconclusive, naming them', () => {
    const lost = { ...quiet(C), checks: B.checks.slice(1) };
    const [first] = B.checks;
    const cmp = compare(B, lost);
    expect(cmp.verdict.status).toBe('inconclusive');
    expect(cmp.verdict.reasons).toEqual([
      `not exercised now, though the baseline exercised them (a regression of the test, not of the service): ${first ?? ''}`,
    ]);
  });

  it('a run that was unreachable or interrupted: inconclusive, naming which', () => {
    expect(compare(ended(B, 'unreachable'), quiet(C)).verdict).toEqual({
      status: 'inconclusive',
      reasons: ['the baseline was unreachable'],
    });
    expect(compare(B, ended(quiet(C), 'interrupted')).verdict).toEqual({
      status: 'inconclusive',
      reasons: ['the current run was interrupted'],
    });
    expect(compare(B, ended(quiet(C), 'failed')).verdict.status).toBe('passed');
  });

  it('a generator-limited run is noted after the verdict, whatever it is', () => {
    const limited = { ...quiet(C), generatorLimited: [STRETCH] };
    expect(compare(B, limited).verdict).toEqual({
      status: 'passed',
      reasons: [
        'no gates set',
        "the current run was generator-limited for 2 s: its client-side latencies and rates there include jobstorm's own queueing",
      ],
    });
    expect(compare({ ...B, generatorLimited: [STRETCH, STRETCH] }, quiet(C)).verdict.reasons[1]).toMatch(
      /^the baseline was generator-limited for 4 s/,
    );
  });
});

describe('the comparison', () => {
  it('takes the defaults for what is not given, and what is given', () => {
    expect(compare(B, quiet(C)).settings).toEqual({ ...COMPARE_DEFAULTS, resamples: 200, significance: null });
    const o = { level: 0.9, minEffect: 0.1, resamples: 100, seed: 5, jobNoise: 0.2, significance: 0.9 };
    expect(compare(B, quiet(C), [], o).settings).toEqual(o);
  });

  it('names its regressions and improvements with their relative change', () => {
    // At the default 4000 resamples: with fewer, no p-value is small enough to survive the correction.
    const cmp = compare(B, C, [], { resamples: 4000 });
    expect(cmp.regressions.some((r) => /^p50\(executionTime\) \(\+\d+\.\d%\)$/.test(r))).toBe(true);
    const back = compare(C, B, [], { resamples: 4000 });
    expect(back.improvements.some((r) => /^p50\(executionTime\) \(-\d+\.\d%\)$/.test(r))).toBe(true);
    expect(back.regressions.some((r) => r.startsWith('p50(executionTime)'))).toBe(false);
    expect(cmp.improvements.some((r) => r.startsWith('p50(executionTime)'))).toBe(false);
  });
});

describe('what is compared', () => {
  it('runs of different scenarios only with force, naming what was forced', () => {
    const other = { ...quiet(C), run: { ...C.run, scenario: 'other' } };
    expect(() => compare(B, other)).toThrow(/different scenarios/);
    expect(compare(B, other, [], { force: true }).forced).toEqual([
      `different scenarios: the baseline ran "${B.run.scenario}", the current run "other"`,
    ]);
    expect(compare(B, quiet(C), [], { force: true }).forced).toEqual([]);
  });

  it('without gates given at all: no gates, and none among the corrections', () => {
    const cmp = compareRuns(B, quiet(C), { baselineSource: 'b', currentSource: 'c', resamples: 200 });
    expect(cmp.gates).toEqual([]);
    expect(cmp.deltas.every((d) => d.significance?.corrected.family !== 'gates')).toBe(true);
    expect(cmp.verdict.reasons).toEqual(['no gates set']);
  });

  it('a regression from 0 is named without a relative change', () => {
    const errors = structuredClone(quiet(C));
    const status = errors.operations.status;
    const ok = status?.outcomes['2xx'];
    if (!status || !ok) throw new Error('fixture');
    status.outcomes.error = { ...ok, count: 60 };
    const cmp = compare(B, errors, [], { resamples: 4000 });
    expect(cmp.regressions).toContain('rate(errors)');
    expect(cmp.regressions).toContain('rate(errors{op=status})');
  });
});

describe('known findings are counted like any other', () => {
  it('a summary without known findings is read as it is', () => {
    const s = { ...B, violations: [{ id: 'x', count: 2, severity: 'error' as const, examples: [] }] };
    expect(asAnyOther(s)).toBe(s);
  });

  it('known counts and the run\'s known deviations are dropped', () => {
    const s = {
      ...B,
      violations: [
        { id: 'x', count: 2, known: 1, severity: 'error' as const, examples: [] },
        { id: 'y', count: 1, severity: 'error' as const, examples: [] },
      ],
    };
    const read = asAnyOther(s);
    expect(read.violations).toEqual([
      { id: 'x', count: 2, severity: 'error', examples: [] },
      { id: 'y', count: 1, severity: 'error', examples: [] },
    ]);
    expect(s.violations[0]?.known).toBe(1);
    const withKnown = { ...B, known: { entries: [] } } as unknown as Summary;
    const readKnown = asAnyOther(withKnown);
    expect('known' in readKnown).toBe(false);
    expect(readKnown).not.toBe(withKnown);
  });
});
