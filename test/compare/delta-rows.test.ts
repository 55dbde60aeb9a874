import { describe, expect, it } from 'vitest';
import { ChangeTests, type TestedChange } from '../../src/compare/change-tests.js';
import type { Significance } from '../../src/compare/compare-data.js';
import { deltaRow, deltaRows, rowMetrics, type RowMetric, type RowSettings } from '../../src/compare/delta-rows.js';
import type { Summary } from '../../src/report/summary.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * One row of the deltas table from a measured change (delta-rows.ts): its direction, its effect,
 * its significance on its own and after the correction, and which rows the table leaves out.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);
const SETTINGS: RowSettings = { level: 0.95, resamples: 200, seed: 1, jobNoise: 0.05, minEffect: 0.05 };

function rowOf(expression: string, group = 'g'): RowMetric {
  const [t] = parseThresholds([{ expression: `${expression} >= 0`, where: 'test' }]);
  if (!t) throw new Error(expression);
  return { group, threshold: { ...t, expression } };
}

/** A significance with this p alone and this p after the correction. */
function sig(p: number, corrected = p): Significance {
  return {
    method: 'per-second bootstrap',
    ci: [-1, 1],
    p,
    confidence: 1 - p,
    corrected: { family: 'table', tests: 2, p: corrected, confidence: 1 - corrected },
  };
}

function change(baseline: number | null, current: number | null, significance: Significance | null = null): TestedChange {
  return { baseline, current, significance };
}

interface DeltaRowLite {
  metric: string;
  baseline: number | null;
  current: number | null;
}

const row = (expression: string, m: TestedChange, o: RowSettings = SETTINGS) => deltaRow(rowOf(expression), m, B, C, o);

describe('a row: its change and which way it goes', () => {
  it('the change and its share of the baseline; none without both sides, no share of a baseline of 0', () => {
    expect(row('p50(run)', change(100, 130))).toMatchObject({ delta: 30, relative: 0.3, direction: 'worse' });
    expect(row('p50(run)', change(100, 70))).toMatchObject({ delta: -30, relative: -0.3, direction: 'better' });
    expect(row('p50(run)', change(100, 100))).toMatchObject({ delta: 0, relative: 0, direction: 'same' });
    expect(row('p50(run)', change(0, 5))).toMatchObject({ delta: 5, relative: null, direction: 'worse' });
    expect(row('p50(run)', change(null, 5))).toMatchObject({ delta: null, relative: null, direction: null });
    expect(row('p50(run)', change(5, null))).toMatchObject({ delta: null, relative: null, direction: null });
  });

  it('shares: more errors, 5xx, 429 or lost jobs are worse; more completed jobs or 2xx are better', () => {
    for (const m of ['rate(errors)', 'rate(5xx)', 'rate(429)', 'rate(4xx)', 'rate(failed)', 'rate(cancelled)', 'rate(timed_out)', 'rate(lost)']) {
      expect(row(m, change(0.1, 0.2)).direction, m).toBe('worse');
      expect(row(m, change(0.2, 0.1)).direction, m).toBe('better');
    }
    for (const m of ['rate(completed)', 'rate(2xx)']) {
      expect(row(m, change(0.1, 0.2)).direction, m).toBe('better');
      expect(row(m, change(0.2, 0.1)).direction, m).toBe('worse');
    }
  });

  it('more violations or dropped arrivals are worse; other counts and rates per second just changed', () => {
    expect(row('count(violations)', change(1, 2)).direction).toBe('worse');
    expect(row('count(violations)', change(2, 1)).direction).toBe('better');
    expect(row('count(dropped)', change(1, 2)).direction).toBe('worse');
    expect(row('count(dropped)', change(2, 1)).direction).toBe('better');
    // A count of failed jobs is a count, not a share: the run may just have been longer.
    expect(row('count(failed)', change(1, 2)).direction).toBe('changed');
    expect(row('count(completed)', change(1, 2)).direction).toBe('changed');
    expect(row('count(errors)', change(1, 2)).direction).toBe('changed');
    expect(row('count(run)', change(2, 1)).direction).toBe('changed');
    expect(row('rps(run)', change(10, 20)).direction).toBe('changed');
  });
});

describe('a row: significant, alone and after the correction', () => {
  it('significant after the correction at the level; alone on the uncorrected p', () => {
    expect(row('p50(run)', change(100, 130, sig(0.01)))).toMatchObject({ significant: true, significantAlone: true });
    expect(row('p50(run)', change(100, 130, sig(0.01, 0.2)))).toMatchObject({ significant: false, significantAlone: true });
    expect(row('p50(run)', change(100, 130, sig(0.2)))).toMatchObject({ significant: false, significantAlone: false });
    // Exactly at the level: 1 − 0.95 is 0.050000000000000044, so p = 0.05 is under it.
    expect(row('p50(run)', change(100, 130, sig(0.05)))).toMatchObject({ significant: true, significantAlone: true });
    expect(row('p50(run)', change(100, 130, sig(0.051)))).toMatchObject({ significant: false, significantAlone: false });
    expect(row('p50(run)', change(100, 130, null))).toMatchObject({ significant: false, significantAlone: false });
    // At 75 %, 1 − level is exactly 0.25: a p of 0.25 is significant, alone and after the correction.
    const at75 = { ...SETTINGS, level: 0.75 };
    expect(row('p50(run)', change(100, 130, sig(0.25)), at75)).toMatchObject({ significant: true, significantAlone: true });
    expect(row('p50(run)', change(100, 130, sig(0.2500001)), at75)).toMatchObject({ significant: false, significantAlone: false });
  });

  it('a time or a rate per second must move by minEffect of the baseline, at least', () => {
    expect(row('p50(run)', change(100, 104.9, sig(0.001)))).toMatchObject({ significant: false, significantAlone: false });
    expect(row('p50(run)', change(100, 105, sig(0.001)))).toMatchObject({ significant: true, significantAlone: true });
    expect(row('p50(run)', change(100, 95, sig(0.001)))).toMatchObject({ significant: true, significantAlone: true });
    expect(row('p50(run)', change(100, 95.1, sig(0.001)))).toMatchObject({ significant: false });
    expect(row('rps(run)', change(100, 104, sig(0.001)))).toMatchObject({ significant: false, significantAlone: false });
    // Shares and counts have no such floor; neither has a change from 0.
    expect(row('rate(errors)', change(0.1, 0.1001, sig(0.001)))).toMatchObject({ significant: true });
    expect(row('count(run)', change(1000, 1001, sig(0.001)))).toMatchObject({ significant: true });
    expect(row('p50(run)', change(0, 1, sig(0.001)))).toMatchObject({ significant: true });
    // No change is never significant.
    expect(row('rate(errors)', change(0.1, 0.1, sig(0.001)))).toMatchObject({ significant: false, significantAlone: false });
  });
});

describe('a row: large, and why it was not tested', () => {
  it('large by its unit over each run\'s measured seconds; never without both sides', () => {
    expect(row('p50(run)', change(10, 20)).large).toBe(true);
    expect(row('p50(run)', change(10, 19)).large).toBe(false);
    // 10 against 30 in 3.1 s and 3.2 s: 3.2/s against 9.3/s, ×2.9 and just beyond 3 standard deviations.
    expect(row('count(run)', change(10, 30)).large).toBe(true);
    expect(row('p50(run)', change(null, 20)).large).toBe(false);
    expect(row('p50(run)', change(10, null)).large).toBe(false);
  });

  it('counts per second: a longer current run with the same count is a slower rate', () => {
    const long = { ...C, run: { ...C.run, durationMs: 4 * C.run.durationMs } };
    expect(deltaRow(rowOf('count(run)'), change(100, 100), B, long, SETTINGS).large).toBe(true);
    expect(deltaRow(rowOf('count(run)'), change(100, 100), B, C, SETTINGS).large).toBe(false);
    expect(deltaRow(rowOf('count(run)'), change(100, 100), long, C, SETTINGS).large).toBe(true);
  });

  it('untested only when both sides have it and it has no significance', () => {
    expect(row('max(run)', change(10, 20)).untested).toEqual({ reason: 'a maximum is one value, never resampled', runMs: null });
    expect(row('max(run)', change(10, 20, sig(0.5))).untested).toBeNull();
    expect(row('max(run)', change(null, 20)).untested).toBeNull();
    expect(row('max(run)', change(10, null)).untested).toBeNull();
  });

  it('names the row as a gate would, in its group and unit', () => {
    expect(row('p50(run)', change(1, 2))).toMatchObject({ group: 'g', metric: 'p50(run)', unit: 'ms', baseline: 1, current: 2 });
  });
});

describe('the table', () => {
  it('rows for the operations both runs know, sorted, and the job timings either run has', () => {
    const run = C.operations.run;
    if (!run) throw new Error('the fixture has run requests');
    // `cancel` comes last in the current run's operations, `custom` is no operation of jobstorm's.
    const extra: Summary = { ...C, operations: { ...C.operations, custom: run, cancel: run } };
    const rows = rowMetrics(B, extra);
    const groups = [...new Set(rows.map((r) => r.group))];
    expect(groups).toEqual(['requests', 'cancel', 'health', 'run', 'status', 'jobs', 'violations']);
    const jobs = rows.filter((r) => r.group === 'jobs').map((r) => r.threshold.expression);
    expect(jobs).toContain('p50(executionTime)');
    expect(jobs).toContain('p99(e2e{status=COMPLETED})');
    expect(jobs.some((e) => e.includes('firstChunk'))).toBe(false);
    expect(jobs.some((e) => e.includes('status=FAILED'))).toBe(false);
    expect(rows.map((r) => r.threshold.expression).slice(0, 5)).toEqual([
      'rps(requests)',
      'rate(429)',
      'rate(errors)',
      'rate(5xx)',
      'count(dropped)',
    ]);
  });

  it('a job timing one run has is a row: the current run alone had a FAILED job', () => {
    const failed = structuredClone(C);
    failed.jobs.e2e.FAILED = structuredClone(C.jobs.e2e.COMPLETED);
    const only = (b: Summary, c: Summary): string[] =>
      rowMetrics(b, c).map((r) => r.threshold.expression).filter((e) => e.includes('status=FAILED'));
    expect(only(B, failed)).toEqual(['p50(e2e{status=FAILED})', 'p90(e2e{status=FAILED})', 'p99(e2e{status=FAILED})', 'max(e2e{status=FAILED})']);
    expect(only(failed, B)).toHaveLength(4);
  });

  it('leaves out rows neither run has, and rows at 0 in both but requests and violations', () => {
    const rows = rowMetrics(B, C);
    const tests = new ChangeTests(B, C, SETTINGS, { table: rows.map((r) => r.threshold), gates: [] });
    const table = deltaRows(rows, tests, B, C, SETTINGS);
    const metrics = table.map((r) => r.metric);
    // No 5xx in either run: the operation's row is left out, the run-wide one kept.
    expect(metrics).not.toContain('rate(5xx{op=run})');
    expect(metrics).toContain('rate(5xx)');
    expect(metrics).toContain('count(dropped)');
    expect(metrics).toContain('count(violations)');
    expect(table.find((r) => r.metric === 'rate(5xx)')).toMatchObject({ baseline: 0, current: 0 });
    // Every row kept has a side that is not 0, or is a requests or violations row.
    for (const r of table)
      expect((r.baseline ?? 0) !== 0 || (r.current ?? 0) !== 0 || ['requests', 'violations'].includes(r.group), r.metric).toBe(true);
    expect(table.length).toBeLessThan(rows.length);
  });

  it('keeps an operation\'s row at 0 on one side only, either side; a violations row at 0 on both', () => {
    const errors = structuredClone(C);
    const status = errors.operations.status;
    const ok = status?.outcomes['2xx'];
    if (!status || !ok) throw new Error('fixture');
    status.outcomes.error = { ...ok, count: 60 };
    const metricsOf = (b: Summary, c: Summary): string[] => {
      const rows = rowMetrics(b, c);
      const tests = new ChangeTests(b, c, SETTINGS, { table: rows.map((r) => r.threshold), gates: [] });
      return deltaRows(rows, tests, b, c, SETTINGS).map((r) => r.metric);
    };
    expect(metricsOf(B, errors)).toContain('rate(errors{op=status})');
    expect(metricsOf(errors, B)).toContain('rate(errors{op=status})');
    const self = metricsOf(B, B);
    expect(B.violations.reduce((n, v) => n + v.count, 0)).toBe(0);
    expect(self).toContain('count(violations)');
    expect(self).not.toContain('rate(errors{op=status})');
  });

  it('leaves out a row neither run measured, keeps one that one run measured', () => {
    // No measured time: no rate per second of requests.
    const still = (s: Summary): Summary => ({ ...s, run: { ...s.run, durationMs: 0 } });
    const metricsOf = (b: Summary, c: Summary): DeltaRowLite[] => {
      const rows = rowMetrics(b, c);
      const tests = new ChangeTests(b, c, SETTINGS, { table: rows.map((r) => r.threshold), gates: [] });
      return deltaRows(rows, tests, b, c, SETTINGS).map((r) => ({ metric: r.metric, baseline: r.baseline, current: r.current }));
    };
    expect(metricsOf(still(B), still(C)).find((r) => r.metric === 'rps(requests)')).toBeUndefined();
    expect(metricsOf(still(B), C).find((r) => r.metric === 'rps(requests)')).toMatchObject({ baseline: null });
    expect(metricsOf(B, still(C)).find((r) => r.metric === 'rps(requests)')).toMatchObject({ current: null });
  });
});
