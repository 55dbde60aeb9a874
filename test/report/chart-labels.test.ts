import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { chartSpecs } from '../../src/report/chart-data.js';
import { formatMs } from '../../src/report/format.js';
import { timingRows } from '../../src/report/report-view.js';
import { withScalingChart } from '../../src/report/scaling-chart.js';
import type { Summary } from '../../src/report/summary.js';
import { percentilesOf } from '../../src/report/percentiles.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/*
 * Issue 47 item 4: labels that say what is plotted. The scaling chart's "arrivals/s" plotted jobs
 * submitted; a line on the right axis did not say so; delayTime, reported in whole ms, was binned
 * from 1 µs and shown as "p50 0µs".
 */

/** The fixture with delayTime as a queue with idle workers reports it: mostly 0 ms, some 1 to 3 ms. */
function wholeMsDelays(): Summary {
  const s = fixtureSummary();
  const h = LatencyHistogram.create();
  for (let i = 0; i < 60; i++) h.recordMs(0);
  for (const ms of [1, 1, 2, 3, 3, 3]) h.recordMs(ms);
  s.jobs.delayTime = { percentiles: percentilesOf(h), histogram: h.encode() };
  return s;
}

describe('report charts and timings say what they show', () => {
  it('the scaling chart names its dashed line jobs submitted/s, what it plots, and its axis says the same', () => {
    const s = fixtureSummary();
    const scaling = withScalingChart(chartSpecs(s), s).find((c) => c.id === 'scaling');
    if (!scaling) throw new Error('the fixture has no scaling chart');
    const line = scaling.series.find((x) => x.values === s.series.submitted);
    expect(line?.label).toBe('jobs submitted/s (right axis)');
    expect(scaling.rightLabel).toBe('jobs submitted/s');
    expect(JSON.stringify(scaling)).not.toContain('arrivals');
  });

  it('every line drawn against the right axis says so in its legend label', () => {
    const s = fixtureSummary();
    const right = withScalingChart(chartSpecs(s), s).flatMap((c) =>
      c.series.filter((x) => x.right === true).map((x) => `${c.id}: ${x.label}`),
    );
    expect(right.length).toBeGreaterThanOrEqual(2);
    for (const label of right) expect(label).toMatch(/right axis/);
    expect(right).toContain('throughput: requests in flight (mean, right axis)');
  });

  it('delayTime, reported in whole ms, is shown and binned at 1 ms: 0ms, not 0µs', () => {
    const s = wholeMsDelays();
    const row = timingRows(s).find((r) => r[0] === 'delayTime');
    expect(row).toEqual(['delayTime', '66', '0ms', '0ms', '2ms', '3ms', '3ms']);
    const bars = chartSpecs(s).find((c) => c.id === 'delay');
    if (!bars?.xLabels) throw new Error('no delayTime bars');
    expect(bars.xLabels[0]).toBe('0ms');
    for (const l of bars.xLabels) expect(l).toMatch(/^\d+ms$/);
    // Whole-ms bins: one per value the data can take here, none narrower than 1 ms.
    expect(new Set(bars.xLabels).size).toBe(bars.xLabels.length);
    expect((bars.series[0]?.values ?? []).reduce<number>((n, v) => n + (v ?? 0), 0)).toBe(66);
  });

  it('formats a whole-ms timing without digits finer than a millisecond', () => {
    expect(formatMs(0, 1)).toBe('0ms');
    expect(formatMs(0.4, 1)).toBe('<1ms');
    expect(formatMs(12.003, 1)).toBe('12ms');
    expect(formatMs(1500.2, 1)).toBe('1.50s');
    expect(formatMs(0.4)).toBe('400µs');
  });
});
