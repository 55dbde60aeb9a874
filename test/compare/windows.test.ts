import { describe, expect, it } from 'vitest';
import { countWindows, firstMeasuredSecond, latencyWindows } from '../../src/compare/windows.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { fixtureSummary } from '../report/fixtures/fixture-summary.js';

describe('compare windows of a run with a warm-up', () => {
  it('start at the first whole second after it: what is compared is what the summary measured', () => {
    const s = fixtureSummary();
    expect(firstMeasuredSecond(s)).toBe(0);
    const offset = s.run.startMs - s.series.startSec * 1000;
    // A warm-up ending 1.2 s into the series' second 2 leaves seconds 0 to 2 out.
    const warm = { ...s, warmup: { ms: 2200 - offset, requests: 1, dropped: 0 } };
    expect(firstMeasuredSecond(warm)).toBe(3);
    const all = latencyWindows(s, Object.keys(s.operations));
    const measured = latencyWindows(warm, Object.keys(s.operations));
    const countFrom = (from: number): number =>
      Object.values(s.series.ops).reduce((n, o) => n + o.requests.slice(from).reduce((a, b) => a + b, 0), 0);
    expect(measured.reduce((n, w) => n + w.total, 0)).toBe(countFrom(3));
    expect(all.reduce((n, w) => n + w.total, 0)).toBe(countFrom(0));
    expect(countWindows(5, [[1, 2, 3, 4, 5]], 3)).toEqual([[4], [5]]);
    // A warm-up past the series' end leaves nothing to resample, never a negative range.
    expect(firstMeasuredSecond({ ...s, warmup: { ms: 1e9, requests: 0, dropped: 0 } })).toBe(s.series.length);
    // The field survives the summary's schema.
    expect(parseSummary(JSON.parse(JSON.stringify(warm)), 'warm.json').warmup).toEqual(warm.warmup);
  });
});
