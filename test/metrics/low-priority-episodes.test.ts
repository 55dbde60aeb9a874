import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import { FoldedMetrics } from '../helpers/folded.js';
import type { MetricsData } from '../../src/metrics/metrics-data.js';
import type { ScalingData } from '../../src/metrics/scaling-data.js';
import { scalingFigures } from '../../src/metrics/scaling-figures.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { RUN, START, health, job, type Row } from './scaling-fixture.js';

/*
 * Issue 47 item 4: the scale-up-lag episode spanned the stretch where only our lowPriority jobs
 * waited (shaded 20 s for a lag of 11 s), which the scaling checks rightly leave out. The figures
 * now read the same queue spans (fold/queue-spans.ts) and leave them out too.
 */

/** Three lowPriority jobs queue at t=1 with no worker; five normal ones join at t=10; five workers are ready at t=21. */
const ROWS: Row[] = [
  [0, 0, 0, 0, 0, 0],
  ...Array.from({ length: 9 }, (_, i): Row => [i + 1, 0, 0, 0, 3, 0]),
  [10, 0, 0, 0, 8, 0],
  [11, 0, 0, 0, 8, 0],
  ...Array.from({ length: 9 }, (_, i): Row => [i + 12, 0, 0, 5, 8, 0]),
  [21, 0, 5, 0, 3, 5],
  [22, 0, 5, 0, 0, 3],
  [23, 5, 0, 0, 0, 0],
];

function low(records: ExchangeRecord[]): ExchangeRecord[] {
  return records.map((r) => (r.op === 'run' ? { ...r, req: { lowPriority: true } } : r));
}

function records(): JobstormRecord[] {
  const lows = ['l1', 'l2', 'l3'].flatMap((id) => low(job(id, 1, 21_500, 23)));
  const normal = ['n1', 'n2', 'n3', 'n4', 'n5'].flatMap((id) => job(id, 10, 11_000, 22));
  return [RUN, ...ROWS.map((r) => health(r)), ...lows, ...normal].sort(
    (a, b) => (a.type === 'exchange' ? a.endAt : -1) - (b.type === 'exchange' ? b.endAt : -1),
  );
}

function dataOf(rs: readonly JobstormRecord[]): ScalingData {
  const m = new FoldedMetrics({});
  for (const r of rs) m.add(r);
  const d = m.toJSON().scaling;
  if (!d) throw new Error('no scaling data');
  return d;
}

describe('scale-up episodes leave out our lowPriority jobs, as the scaling checks do', () => {
  it('the episode starts when jobs that call for workers queue, not when the lowPriority ones did', () => {
    const f = scalingFigures(dataOf(records()), { originMs: START, completed: 8 });
    expect(f.episodes).toEqual([{ at: 10_000, end: 'scaled', durationMs: 11_000, from: 0, to: 5 }]);
    expect(f.scaleUpLagMs).toEqual([11_000]);
  });

  it('the lowPriority spans travel in summary.json and survive a merge of shards exactly', () => {
    const all = records();
    const metricsOf = (keep: (r: ExchangeRecord) => boolean) => {
      const m = new FoldedMetrics({});
      for (const r of all) if (r.type !== 'exchange' || keep(r)) m.add(r);
      return m;
    };
    const whole = buildSummary({ run: RUN, metrics: metricsOf(() => true) });
    expect(whole.scaling?.lowPriorityQueued).toEqual([
      [START + 1000, START + 23_000],
      [START + 1000, START + 23_000],
      [START + 1000, START + 23_000],
    ]);
    const read = parseSummary(JSON.parse(JSON.stringify(whole)), 'summary.json');
    expect(read.scaling?.figures.scaleUpLagMs).toEqual([11_000]);
    // One shard holds the /health reads and the normal jobs, the other the lowPriority jobs; each
    // goes through its encoded form, as shards' summaries do.
    const isLow = (r: ExchangeRecord) => r.jobId?.startsWith('l') === true;
    const encoded = (m: RunMetrics) =>
      RunMetrics.fromJSON(JSON.parse(JSON.stringify(m.toJSON())) as MetricsData);
    const merged = encoded(metricsOf((r) => !isLow(r))).merge(encoded(metricsOf(isLow)));
    const data = merged.toJSON().scaling;
    if (!data) throw new Error('the merge lost the scaling data');
    const figures = scalingFigures(data, { originMs: START, completed: 8 });
    expect(figures.episodes).toEqual(whole.scaling?.figures.episodes);
    expect(merged.toJSON().scaling?.lowPriorityQueued).toEqual(whole.scaling?.lowPriorityQueued);
  });
});
