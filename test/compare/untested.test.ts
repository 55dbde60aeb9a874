import { describe, expect, it } from 'vitest';
import { checkRows } from '../../src/compare/check-rows.js';
import { compareCharts } from '../../src/compare/compare-charts.js';
import type { Comparison } from '../../src/compare/compare-data.js';
import { renderCompareHtml } from '../../src/compare/compare-html.js';
import { renderCompareMarkdown } from '../../src/compare/compare-markdown.js';
import { renderCompareText } from '../../src/compare/compare-text.js';
import { checksLine, headline } from '../../src/compare/compare-view.js';
import { compareRuns } from '../../src/compare/comparison.js';
import { LARGE_RULE, isLarge } from '../../src/compare/large-change.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/**
 * Issue 34: an untested change never reads as "no change", a check that judged nothing is never
 * "clean", the console gets text, and runs of different length overlay as shares.
 */
function compare(b: Summary, c: Summary, level = 0.95): Comparison {
  return compareRuns(b, c, { baselineSource: 'b', currentSource: 'c', level });
}

describe('large changes that could not be tested', () => {
  it('two short runs: the headline names the untested large change, its size and the run that would test it', () => {
    // At 99.99 % nothing in these 3-second runs is significant, yet p99(status) grew ×2.9 untested.
    const cmp = compare(fixture(BASELINE_FILE), fixture(CURRENT_FILE), 0.9999);
    expect(cmp.regressions).toEqual([]);
    const row = cmp.deltas.find((d) => d.metric === 'p99(status)');
    expect(row).toMatchObject({ significance: null, large: true, significant: false });
    expect(row?.untested?.reason).toMatch(/^too few values for p99: 135 and 166/);
    expect(row?.untested?.runMs).toBe(24_000);
    const text = headline(cmp);
    expect(text).not.toContain('No significant change');
    expect(text).toMatch(/^No tested change is significant .*; 4 large changes could not be tested/);
    for (const out of [renderCompareMarkdown(cmp), renderCompareText(cmp)]) {
      expect(out).not.toContain('No significant change');
      expect(out).toContain(
        'p99(status) 63.6ms → 187ms, ×2.9, not tested: too few values for p99: 135 and 166, where 1000 put 10 above it; a measured run of at least 24 s (24 windows of 1 s) would test it',
      );
      expect(out).toContain('max(status) 73.8ms → 202ms, ×2.7, not tested: a maximum is one value');
      expect(out).toContain(LARGE_RULE);
    }
    expect(renderCompareHtml(cmp, fixture(BASELINE_FILE), fixture(CURRENT_FILE))).toContain(
      '<li class="fail">p99(status) 63.6ms → 187ms, ×2.9, not tested',
    );
  });

  it('a run against itself has no large change, so "No significant change" may be said', () => {
    const cmp = compare(fixture(BASELINE_FILE), fixture(BASELINE_FILE));
    expect(cmp.deltas.some((d) => d.large)).toBe(false);
    expect(headline(cmp)).toMatch(/^No significant change \(/);
  });

  it('"large" by unit: ×2 for times and rates per second, doubled shares or complements, counts per second beyond noise', () => {
    const at = (value: number, seconds = 10): { value: number; seconds: number } => ({ value, seconds });
    expect(isLarge('ms', at(3.6), at(86.7))).toBe(true);
    expect(isLarge('ms', at(100), at(190))).toBe(false);
    expect(isLarge('ms', at(0.2), at(0.9))).toBe(false); // under a millisecond apart
    expect(isLarge('rps', at(40), at(19))).toBe(true);
    expect(isLarge('ratio', at(0), at(0.05))).toBe(true);
    expect(isLarge('ratio', at(0), at(0.005))).toBe(false); // under one percentage point
    expect(isLarge('ratio', at(0.999), at(0.9))).toBe(true); // the failures, 0.1 % to 10 %
    expect(isLarge('count', at(100, 10), at(200, 20))).toBe(false); // same rate, longer run
    expect(isLarge('count', at(100, 10), at(400, 10))).toBe(true);
    expect(isLarge('count', at(1, 10), at(3, 10))).toBe(false); // within Poisson noise
  });
});

describe('checks: clean against not exercised', () => {
  it('a check that judged nothing in either run is "not exercised", not counted among the clean', () => {
    const b = fixture(BASELINE_FILE);
    const c = fixture(BASELINE_FILE);
    for (const s of [b, c]) {
      s.coverage = { 'schema.run': 40, 'webhook.missing': 0, 'transition.backwards': 12 };
      s.checks = Object.keys(s.coverage);
    }
    const rows = checkRows(b, c);
    expect(rows.find((r) => r.id === 'schema.run')?.change).toBe('clean');
    expect(rows.find((r) => r.id === 'webhook.missing')?.change).toBe('not exercised');
    const cmp = { ...compare(b, c), checks: rows };
    expect(checksLine(cmp)).toBe(
      '2 checks clean in both runs (exercised, no violation); 1 not exercised in either run, so not known to be clean: webhook.missing.',
    );
    // Judged nothing in one run and unknown (no coverage) in the other: still not a pass.
    const legacy = fixture(BASELINE_FILE);
    legacy.coverage = {};
    expect(checkRows(legacy, c).find((r) => r.id === 'webhook.missing')?.change).toBe('not exercised');
  });
});

describe('the console gets text', () => {
  it('jobstorm compare prints no Markdown: no tables, no emphasis, no code spans', () => {
    const text = renderCompareText(compare(fixture(BASELINE_FILE), fixture(CURRENT_FILE)));
    expect(text).not.toMatch(/^\s*\|/m);
    expect(text).not.toContain('| --- |');
    expect(text).not.toContain('---:');
    expect(text).not.toContain('**');
    expect(text).not.toContain('`');
    expect(text).not.toMatch(/^#/m);
    expect(text).toMatch(/^compare: INCONCLUSIVE — /);
    expect(text).toContain('p50(executionTime)');
  });
});

describe('distributions of two runs', () => {
  it('overlays job-time histograms as shares of each run, whatever its length', () => {
    const b = fixture(BASELINE_FILE);
    const c = fixture(CURRENT_FILE);
    for (const chart of compareCharts(b, c).filter((x) => x.kind === 'bars')) {
      expect(chart.yLabel, chart.id).toBe('% of jobs');
      for (const s of chart.series) {
        const sum = s.values.reduce<number>((n, v) => n + (v ?? 0), 0);
        expect(sum, `${chart.id} ${s.label}`).toBeCloseTo(100, 1);
      }
    }
  });
});
