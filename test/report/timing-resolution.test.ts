import { describe, expect, it } from 'vitest';
import { deltaCells, formatChange } from '../../src/compare/compare-view.js';
import type { DeltaRow } from '../../src/compare/compare-data.js';
import { resolutionOfMetric } from '../../src/metrics/timing-resolution.js';
import { formatThreshold, formatValue } from '../../src/report/format.js';
import { windowLine } from '../../src/report/threshold-window-line.js';

/*
 * Issue 47 item 4: delayTime and executionTime come from the service in whole milliseconds, so no
 * value on them, in a threshold, a window line or a compare row, is shown finer than 1 ms (a p50 of
 * 0 is `0ms`, not `0µs`); timings jobstorm measures itself keep their microseconds.
 */
describe('the resolution of the timing an expression reads', () => {
  it.each([
    ['p50(delayTime)', 1],
    ['p99( executionTime )', 1],
    ['p95(delayTime{flow:submit})', 1],
    ['delta(p99(executionTime))', 1],
    ['avg(delayTime) < 2s', 1],
    ['p99(run)', 0],
    ['p99(e2e)', 0],
    ['p99(firstChunk)', 0],
    ['count(violation:delayTime.x)', 0],
  ])('%s: %d ms', (expression, ms) => {
    expect(resolutionOfMetric(expression)).toBe(ms);
  });
});

describe('values on whole-millisecond timings', () => {
  it('a threshold on delayTime prints 0ms and <1ms, one on run keeps its µs', () => {
    const at = (expression: string, value: number): string =>
      formatThreshold({ expression, value, ok: true, unit: 'ms' });
    expect(at('p50(delayTime) < 100ms', 0)).toBe('p50(delayTime) < 100ms  (value 0ms)');
    expect(at('p50(delayTime) < 100ms', 0.4)).toBe('p50(delayTime) < 100ms  (value <1ms)');
    expect(at('p90(executionTime) < 1s', 12.34)).toBe('p90(executionTime) < 1s  (value 12ms)');
    expect(at('p50(run) < 100ms', 0.4)).toBe('p50(run) < 100ms  (value 400µs)');
    expect(formatValue(0, 'ms')).toBe('0µs');
  });

  it("a windowed threshold's worst window and whole run", () => {
    const line = windowLine({
      expression: 'p99(delayTime) < 1ms over 5s',
      value: 0,
      ok: true,
      unit: 'ms',
      window: { seconds: 5, judged: 2, failed: 0, worst: { at: 3, value: 0 }, failing: [] },
      wholeRun: { value: 0, ok: true },
    });
    expect(line).toBe('worst 5s window from t+3s: 0ms; 0 of 2 windows failed; whole run 0ms (holds)');
  });

  it('a compare row on delayTime: values, change and interval in whole ms', () => {
    const row: DeltaRow = {
      group: 'jobs',
      metric: 'p50(delayTime)',
      unit: 'ms',
      baseline: 0,
      current: 3,
      delta: 3,
      relative: null,
      direction: 'worse',
      significance: null,
      significant: false,
    } as DeltaRow;
    expect(deltaCells(row).slice(0, 4)).toEqual(['p50(delayTime)', '0ms', '3ms', '+3ms']);
    expect(formatChange(0.25, 'ms', 1)).toBe('+<1ms');
    expect(formatChange(0.25, 'ms')).toBe('+250µs');
  });
});
