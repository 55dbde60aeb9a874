import { describe, expect, it } from 'vitest';
import { compareCharts } from '../../src/compare/compare-charts.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { formatMs } from '../../src/report/format.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/* compare.html's charts (compare-charts.ts): both runs on each, baseline first. */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);

const byId = (b: Summary, c: Summary) => new Map(compareCharts(b, c).map((x) => [x.id, x]));

function noJobs(s: Summary): Summary {
  const x = structuredClone(s);
  for (const st of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const) x.jobs.e2e[st].histogram = '';
  x.jobs.executionTime.histogram = '';
  x.jobs.delayTime.histogram = '';
  return x;
}

describe('compareCharts', () => {
  it('a latency chart per operation of either run, sorted, then the jobs: end to end, execution, delay', () => {
    const status = C.operations.status;
    if (!status) throw new Error('the fixture has /status requests');
    const extra: Summary = { ...C, operations: { ...C.operations, cancel: status } };
    expect(compareCharts(B, extra).map((x) => x.id)).toEqual([
      'pct-cancel',
      'pct-health',
      'pct-run',
      'pct-status',
      'pct-e2e',
      'execution',
      'delay',
    ]);
    const cancel = byId(B, extra).get('pct-cancel');
    // Only the current run has it: one series.
    expect(cancel?.series.map((s) => s.label)).toEqual(['current']);
    expect(cancel?.title).toBe('cancel: latency by percentile (from the intended start)');
  });

  it('each operation\'s chart reads every outcome of it, baseline first', () => {
    const run = byId(B, C).get('pct-run');
    expect(run?.series.map((s) => s.label)).toEqual(['baseline', 'current']);
    // The maximum is the last value of each series: the largest latency of any outcome.
    const maxOf = (s: Summary): number => {
      const h = LatencyHistogram.create();
      for (const o of Object.values(s.operations.run?.outcomes ?? {})) h.merge(LatencyHistogram.decode(o.intended));
      return h.maxMs;
    };
    expect(run?.series[0]?.values.at(-1)).toBe(maxOf(B));
    expect(run?.series[1]?.values.at(-1)).toBe(maxOf(C));
    const e2e = byId(B, C).get('pct-e2e');
    expect(e2e?.title).toBe('Jobs: end-to-end time by percentile (every final state)');
    const completed = LatencyHistogram.decode(C.jobs.e2e.COMPLETED.histogram);
    expect(e2e?.series[1]?.values.at(-1)).toBeGreaterThanOrEqual(completed.maxMs);
  });

  it('execution and delay as shares of each run\'s jobs in the same bins', () => {
    const charts = byId(B, C);
    for (const id of ['execution', 'delay']) {
      const chart = charts.get(id);
      expect(chart?.kind, id).toBe('bars');
      expect(chart?.yLabel, id).toBe('% of jobs');
      expect(chart?.series.map((s) => s.label), id).toEqual(['baseline', 'current']);
      expect(chart?.series.every((s) => s.values.length === chart.x.length), id).toBe(true);
    }
    // The bins span both runs: the slower run's longest execution lies in the last bin.
    const exec = charts.get('execution');
    const last = exec?.series[1]?.values.at(-1) ?? 0;
    expect(last).toBeGreaterThan(0);
    expect(exec?.title).toBe("executionTime (as reported), share of each run's jobs");
  });

  it('the bins run from the lower run\'s shortest time to the higher run\'s longest, 30 of them', () => {
    for (const [b, c] of [[B, C], [C, B]] as const) {
      const hb = LatencyHistogram.decode(b.jobs.executionTime.histogram);
      const hc = LatencyHistogram.decode(c.jobs.executionTime.histogram);
      const bins = hb.binsBetween(Math.min(hb.minMs, hc.minMs), Math.max(hb.maxMs, hc.maxMs), 30);
      expect(byId(b, c).get('execution')?.xLabels).toEqual(bins.map((x) => formatMs(x.fromMs)));
    }
    // One run without jobs: the bins are the other run's alone.
    expect(byId(noJobs(B), C).get('execution')?.xLabels).toEqual(byId(C, C).get('execution')?.xLabels);
    expect(byId(C, noJobs(B)).get('execution')?.xLabels).toEqual(byId(C, C).get('execution')?.xLabels);
  });

  it('one run without jobs: its bars are empty, the other run\'s still span its own times', () => {
    const charts = byId(noJobs(B), C);
    const exec = charts.get('execution');
    expect(exec?.series[0]?.values.every((v) => v === 0)).toBe(true);
    expect(exec?.series[1]?.values.reduce<number>((a, b) => a + (b ?? 0), 0)).toBeCloseTo(100, 1);
    const back = byId(C, noJobs(B)).get('execution');
    expect(back?.series[1]?.values.every((v) => v === 0)).toBe(true);
    expect(back?.series[0]?.values.reduce<number>((a, b) => a + (b ?? 0), 0)).toBeCloseTo(100, 1);
  });

  it('no jobs in either run: no job charts', () => {
    expect([...byId(noJobs(B), noJobs(C)).keys()]).toEqual(['pct-health', 'pct-run', 'pct-status']);
  });
});
