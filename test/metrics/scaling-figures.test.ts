import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import type { ScalingData } from '../../src/metrics/scaling-data.js';
import { scalingFigures } from '../../src/metrics/scaling-figures.js';
import { scaleEpisodes } from '../../src/metrics/scale-episodes.js';
import { samplesFromColumns } from '../../src/metrics/worker-sample.js';
import { BURST, RUN, START, burstRecords, health, job, type Row } from './scaling-fixture.js';
import { FoldedMetrics } from '../helpers/folded.js';

function dataOf(records: readonly JobstormRecord[], price?: number): ScalingData {
  const m = new FoldedMetrics(
    price === undefined ? {} : { price: { pricePerWorkerSecond: price, currency: 'USD' } },
  );
  for (const r of records) m.add(r);
  const d = m.toJSON().scaling;
  if (!d) throw new Error('no scaling data');
  return d;
}

describe('scaling figures', () => {
  it('a burst: lag, drain, cold start, workers, worker-seconds and cost, to the known answers', () => {
    const f = scalingFigures(dataOf(burstRecords(), 0.001), { originMs: START, completed: 4 });
    // Queued work beyond the one ready worker from t=2; four ready at t=4.
    expect(f.episodes).toEqual([{ at: 2000, end: 'scaled', durationMs: 2000, from: 1, to: 4 }]);
    expect(f.scaleUpLagMs).toEqual([2000]);
    // Last arrival t=2; first sample with nothing queued or in progress t=6.
    expect(f.drainMs).toBe(4000);
    // Three jobs waited from t=2 to t=4; read by the nearest sample, workers initialized from
    // t=1.5 to t=3.5 (samples at 2 and 3 show it, 1 and 4 do not): 1.5 s of each 2 s wait.
    expect(f.coldStartShare).toBe(0.75);
    expect(f.coldStartMs).toBe(4500);
    expect(f.peakWorkers).toBe(4);
    // 1+1+4+4+4+4+4+4+4+1 over ten 1-s intervals.
    expect(f.workerSeconds).toBe(31);
    expect(f.meanWorkers).toBeCloseTo(3.1, 10);
    expect(f.cost).toBeCloseTo(0.031, 12);
    expect(f.costPer1kJobs).toBeCloseTo(7.75, 10);
    expect(f.currency).toBe('USD');
    expect(f.notMeasured).toEqual({});
  });

  it('no initializing field, no price: those figures say why instead of 0', () => {
    const rows = BURST.map(([t, i, r, , q, p]): Row => [t, i, r, undefined, q, p]);
    const f = scalingFigures(dataOf([RUN, ...rows.map((r) => health(r))]), { originMs: START, completed: 0 });
    expect(f.coldStartShare).toBeNull();
    expect(f.notMeasured.coldStartShare).toBe("the target's /health has no workers.initializing");
    expect(f.cost).toBeNull();
    expect(f.notMeasured.cost).toBe('no scaling.pricePerWorkerSecond in the scenario');
    expect(f.drainMs).toBeNull();
    expect(f.notMeasured.drainTime).toBe('no job was submitted');
    // Without initializing, the workers counted are idle + running.
    expect(f.workerSeconds).toBe(1 + 1 + 1 + 1 + 4 + 4 + 4 + 4 + 4 + 1);
  });

  it('no /health answer at all: every figure not measured, none 0', () => {
    const failed: ExchangeRecord = {
      ...health([1, 0, 0, 0, 0, 0]),
      status: 404,
      body: { error: 'not found' },
    };
    const f = scalingFigures(dataOf([RUN, failed, ...job('a', 1, 500, 2)]), {
      originMs: START,
      completed: 1,
    });
    expect(f.samples).toBe(0);
    for (const k of [
      'scaleUpLag',
      'drainTime',
      'coldStartShare',
      'peakWorkers',
      'workerSeconds',
      'cost',
    ] as const)
      expect(f.notMeasured[k]).toBe('the run took no /health sample with worker counts');
    expect([f.workerSeconds, f.peakWorkers, f.drainMs]).toEqual([null, null, null]);
  });

  it('a queue that never drains before the end is not given a drain time', () => {
    const rows: Row[] = [
      [0, 0, 1, 0, 0, 1],
      [1, 0, 1, 0, 5, 1],
      [2, 0, 1, 0, 4, 1],
    ];
    const f = scalingFigures(dataOf([RUN, ...job('a', 0.5, 0, 9), ...rows.map((r) => health(r))]), {
      originMs: START,
      completed: 0,
    });
    expect(f.drainMs).toBeNull();
    expect(f.notMeasured.drainTime).toBe(
      'jobs were still queued or in progress 1.5 s after the last arrival, when sampling ended',
    );
    expect(f.episodes).toEqual([{ at: 1000, end: 'open', durationMs: 1000, from: 1, to: 1 }]);
    expect(f.notMeasured.scaleUpLag).toBe(
      'no worker was added in 1 episodes of queued work (0 drained, 1 open at the end)',
    );
  });

  it('episodes: one ending by scaling may start the next; a queue emptied without scaling is drained', () => {
    const rows: Row[] = [
      [0, 0, 1, 0, 3, 1],
      [1, 0, 2, 0, 3, 2],
      [2, 0, 2, 0, 0, 2],
      [3, 0, 2, 0, 2, 2],
      [4, 0, 2, 0, 0, 2],
    ];
    const m = new FoldedMetrics({ startedAtMs: START });
    for (const r of rows) m.add(health(r));
    const samples = samplesFromColumns(
      m.toJSON().scaling?.samples ?? {
        atMs: [],
        idle: [],
        running: [],
        initializing: [],
        throttled: [],
        inQueue: [],
        inProgress: [],
      },
    );
    expect(scaleEpisodes(samples).map((e) => [e.atMs - START, e.end, e.durationMs])).toEqual([
      [0, 'scaled', 1000],
      [1000, 'drained', 1000],
      [3000, 'drained', 1000],
    ]);
  });

  it('shards merged, in either order, give exactly the figures of one process seeing every record', () => {
    const records = burstRecords();
    // Health samples alternate between the shards; jobs go to shard 2 only (it asked no /health).
    const shard = (r: JobstormRecord, i: number): '1' | '2' =>
      r.type === 'exchange' && r.op === 'health' ? (i % 2 === 0 ? '1' : '2') : '2';
    const parts = (['1', '2'] as const).map((name) => {
      const m = new FoldedMetrics({ price: { pricePerWorkerSecond: 0.001, currency: 'USD' } });
      records.forEach((r, i) => {
        if (r.type === 'run' || shard(r, i) === name) m.add(r);
      });
      return m;
    });
    const whole = dataOf(records, 0.001);
    const [a, b] = parts.map((p) => RunMetrics.fromJSON(p.toJSON()));
    const ab = new FoldedMetrics()
      .merge(a as RunMetrics)
      .merge(b as RunMetrics)
      .toJSON().scaling;
    const [c, d] = parts.map((p) => RunMetrics.fromJSON(p.toJSON()));
    const ba = new FoldedMetrics()
      .merge(d as RunMetrics)
      .merge(c as RunMetrics)
      .toJSON().scaling;
    expect(ab).toEqual(whole);
    expect(ba).toEqual(whole);
    const input = { originMs: START, completed: 4 };
    expect(scalingFigures(ab as ScalingData, input)).toEqual(scalingFigures(whole, input));
  });
});
