import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { holmAdjusted, metricKey, significantAt } from '../../src/compare/change-tests.js';
import type { Comparison, Significance } from '../../src/compare/compare-data.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import { renderCompareText } from '../../src/compare/compare-text.js';
import { deltaCells, headlineLines } from '../../src/compare/compare-view.js';
import { compareRuns } from '../../src/compare/comparison.js';
import { parseGates } from '../../src/compare/gate.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { fixture } from './fixtures/compare-fixture.js';

/*
 * Issue 47 item 1: one notion of significance. Two real 12 s runs of scenarios/steady-load.yaml
 * against the embedded emulator, the second with --fault slow-execution (execution time really
 * 30 % longer), saved as summaries: rows, gates and the headline must say the same of them.
 */
const at = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const STEADY = fixture(at('steady-load.summary.json'));
const SLOWER = fixture(at('steady-load-slow-execution.summary.json'));

function compare(gates: string[], level = 0.95, significance: number | null = null): Comparison {
  return compareRuns(STEADY, SLOWER, {
    baselineSource: 'steady',
    currentSource: 'slower',
    gates: parseGates(gates.map((expression) => ({ expression, where: 'test' }))),
    level,
    significance,
  });
}

function row(cmp: Comparison, metric: string) {
  const r = cmp.deltas.find((d) => d.metric === metric);
  if (!r) throw new Error(`no row ${metric}`);
  return r;
}

describe("Holm's step-down", () => {
  it('p = 0.03 and 0.04 at 95 %: neither is significant (the second is not judged alone)', () => {
    expect(holmAdjusted([0.03, 0.04])).toEqual([0.06, 0.06]);
    expect(holmAdjusted([0.04, 0.03])).toEqual([0.06, 0.06]);
  });

  it('each p times the tests left, in the order given, never above 1', () => {
    expect(holmAdjusted([0.04, 0.01])).toEqual([0.04, 0.02]);
    expect(holmAdjusted([0.2, 0.01, 0.6])).toEqual([0.4, 0.03, 0.6]);
    expect(holmAdjusted([0.5, 0.9])).toEqual([1, 1]);
    expect(holmAdjusted([])).toEqual([]);
  });

  it('significant exactly at the level, not above it; nothing without a significance', () => {
    const s = (p: number): Significance => ({
      method: 'exact',
      ci: null,
      p: 0,
      confidence: 1,
      corrected: { family: 'table', tests: 1, p, confidence: 1 - p },
    });
    expect(significantAt(s(0.25), 0.75)).toBe(true);
    expect(significantAt(s(0.2500001), 0.75)).toBe(false);
    expect(significantAt(null, 0.95)).toBe(false);
  });

  it('one key per metric, however it is written', () => {
    const key = (e: string): string => {
      const [t] = parseThresholds([`${e} >= 0`]);
      return t ? metricKey(t) : '';
    };
    expect(key('avg(run)')).toBe(key('mean(run)'));
    expect(key('p50( run )')).toBe(key('p50(run)'));
    expect(key('p50(run)')).not.toBe(key('p90(run)'));
    expect(key('rate(errors{op=run})')).not.toBe(key('rate(errors)'));
    expect(key('p99(run{status=2xx,from=sent})')).toBe(key('p99(run{from=sent,status=2xx})'));
    expect(key('count(run)')).not.toBe(key('rps(run)'));
  });
});

describe('a run whose execution time is really 30 % longer', () => {
  it('without gates, the headline names executionTime as a regression, and its rows say the same', () => {
    const cmp = compare([]);
    const [headline = ''] = headlineLines(cmp);
    expect(headline).toMatch(/^significant regressions: p50\(executionTime\) \(\+30\.6%\), p90\(executionTime\)/);
    expect(headline).toContain('Holm-corrected over 17 resampled rows;');
    for (const metric of ['p50(executionTime)', 'p90(executionTime)']) {
      const r = row(cmp, metric);
      expect(r).toMatchObject({ significant: true, significantAlone: true, direction: 'worse' });
      expect(r.significance?.corrected).toMatchObject({ family: 'table', tests: 17 });
      expect(deltaCells(r).at(-1)).toBe('regression');
    }
    // The column shows the corrected confidence, which the decision reads.
    expect(deltaCells(row(cmp, 'p50(executionTime)'))[5]).toBe('95.2%');
  });

  it('when the correction keeps a change from being called significant, the headline names it and says why', () => {
    // At 99 %, p50 is significant alone (99.7 %) but not after the correction over 17 rows (95.2 %).
    const cmp = compare([], 0.99);
    expect(cmp.regressions).toEqual(['p90(executionTime) (+29.1%)']);
    const p50 = row(cmp, 'p50(executionTime)');
    expect(p50).toMatchObject({ significant: false, significantAlone: true });
    const [headline = '', ...lines] = headlineLines(cmp);
    expect(headline).toContain(
      '1 change (regression) significant on its own is not after the correction, so not called significant, though it may be real',
    );
    expect(lines).toContain(
      'regression p50(executionTime) 222ms → 290ms (+30.6%): confidence 99.7% alone, 95.2% Holm-corrected over 17 rows, under 99%',
    );
    expect(deltaCells(p50).at(-1)).toBe('regression alone, not after correction');
    for (const out of [renderCompareText(cmp), renderCompareMarkdown(cmp)]) {
      expect(out).not.toContain('No significant change');
      expect(out).toContain('regression p50(executionTime) 222ms → 290ms (+30.6%): confidence 99.7% alone');
    }
  });

  it('a gate on it and its row judge the one corrected decision, and the headline agrees with both', () => {
    const cmp = compare(['delta( p50(executionTime) ) < 10%'], 0.95, 0.95);
    const [gate] = cmp.gates;
    const r = row(cmp, 'p50(executionTime)');
    expect(gate?.status).toBe('failed');
    expect(gate?.reason).toBe(
      'change +30.6%, significant (confidence 99.7%, Holm-corrected over 1 gated metric)',
    );
    // One measurement, one correction: the gate and the row hold the same values.
    expect(gate?.significance).toEqual(r.significance);
    expect(r.significance?.corrected).toMatchObject({ family: 'gates', tests: 1 });
    expect(r.significant).toBe(true);
    expect(deltaCells(r)[5]).toBe('99.7% gated');
    expect(cmp.regressions).toContain('p50(executionTime) (+30.6%)');
    const [headline = ''] = headlineLines(cmp);
    expect(headline).not.toMatch(/No tested change|No significant change/);
    expect(headline).toContain('Holm-corrected over 16 resampled rows and, apart, over 1 gated metric');
  });

  it('a gate whose change is within noise after the correction passes, and its row is not significant', () => {
    // rps(run) moved −0.9 %: a gate that wants no drop at all is past its limit, but within noise.
    const cmp = compare(['delta(rps(run)) >= 0%', 'delta(p50(executionTime)) < 10%'], 0.95, 0.95);
    const [rps, exec] = cmp.gates;
    expect(rps?.status).toBe('passed');
    expect(rps?.reason).toMatch(
      /^change −0\.9% is past the limit but within noise \(confidence \d+\.\d% < 95%, Holm-corrected over 2 gated metrics\)$/,
    );
    expect(row(cmp, 'rps(run)').significant).toBe(false);
    expect(exec?.status).toBe('failed');
    expect(row(cmp, 'p50(executionTime)').significance?.corrected.tests).toBe(2);
  });
});
