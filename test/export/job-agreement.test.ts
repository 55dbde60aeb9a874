import { describe, expect, it } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { LiveAggregate } from '../../src/export/live-aggregate.js';
import { METRICS } from '../../src/export/metric-catalog.js';
import type { MetricSnapshot } from '../../src/export/metric-snapshot.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { JobFold } from '../../src/metrics/job-fold.js';
import { FoldedMetrics } from '../helpers/folded.js';
import { FINAL_STATES } from '../../src/metrics/metrics-data.js';
import { RunMetrics } from '../../src/metrics/run-metrics.js';
import { loadFixtureRecords } from '../report/fixtures/fixture-summary.js';

interface JobFigures {
  submitted: number;
  lost: number;
  inFlight: number;
  byState: Record<string, number>;
  /** Observations in the end-to-end, delayTime and executionTime histograms. */
  timed: Record<string, number>;
}

function fromMetrics(m: RunMetrics): JobFigures {
  const j = m.toJSON().jobs;
  const count = (encoded: string): number => LatencyHistogram.decode(encoded).count;
  const timed: Record<string, number> = { delay: count(j.delayTime), execution: count(j.executionTime) };
  for (const s of FINAL_STATES) timed[s] = count(j.e2e[s]);
  return { submitted: j.submitted, lost: j.lost, inFlight: j.unfinished, byState: { ...j.byState }, timed };
}

/** The exported job families, summed over shards. */
function fromExports(snapshot: MetricSnapshot): JobFigures {
  const family = (key: keyof typeof METRICS) => {
    const f = snapshot.families.find((x) => x.spec === METRICS[key]);
    if (!f) throw new Error(`no ${key} family`);
    return f;
  };
  const sum = (key: keyof typeof METRICS, state?: string): number =>
    family(key)
      .values.filter((p) => state === undefined || p.labels.state === state)
      .reduce((n, p) => n + p.value, 0);
  const observed = (key: keyof typeof METRICS, state?: string): number =>
    family(key)
      .histograms.filter((h) => state === undefined || h.labels.state === state)
      .reduce((n, h) => n + h.count, 0);
  const byState: Record<string, number> = {};
  const timed: Record<string, number> = {
    delay: observed('delayTime'),
    execution: observed('executionTime'),
  };
  for (const s of FINAL_STATES) {
    byState[s] = sum('jobsFinal', s);
    timed[s] = observed('jobDuration', s);
  }
  return {
    submitted: sum('jobsSubmitted'),
    lost: sum('jobsLost'),
    inFlight: sum('jobsInFlight'),
    byState,
    timed,
  };
}

function aggregate(): LiveAggregate {
  return new LiveAggregate({ shard: '1/1', common: {}, startMs: 0 });
}

/** Metrics and exports, each on a fold of its own. */
function separately(records: readonly JobstormRecord[], maxTrackedJobs?: number): [JobFigures, JobFigures] {
  const m = new FoldedMetrics(maxTrackedJobs === undefined ? {} : { maxTrackedJobs });
  const a = aggregate();
  const own = new JobFold(maxTrackedJobs === undefined ? {} : { maxTracked: maxTrackedJobs });
  for (const r of records) {
    m.add(r);
    a.add(r, own.add(r));
  }
  return [fromMetrics(m), fromExports(a.snapshot(1000))];
}

/** Metrics and exports fed from one fold, each record folded once. */
function together(
  records: readonly JobstormRecord[],
  options: { maxTracked?: number; warmupMs?: number } = {},
): [JobFigures, JobFigures] {
  const fold = new JobFold(options);
  const m = new RunMetrics({
    ...(options.warmupMs === undefined ? {} : { warmupMs: options.warmupMs }),
  });
  const a = aggregate();
  for (const r of records) {
    const jobs = fold.add(r);
    m.add(r, jobs);
    a.add(r, jobs);
  }
  return [fromMetrics(m), fromExports(a.snapshot(1000))];
}

describe('the report’s job metrics and the exported job series', () => {
  const records = loadFixtureRecords();

  it('agree on the fixture’s jobs, each folding the records itself or both fed one fold', () => {
    const [metrics, exports] = separately(records);
    expect(metrics.submitted).toBe(66);
    expect(exports).toEqual(metrics);
    expect(together(records)).toEqual([metrics, metrics]);
  });

  it('agree when the in-flight cap gives jobs up: neither counts a job given up on as in flight', () => {
    const [metrics, exports] = separately(records, 3);
    expect(metrics.inFlight).toBeLessThanOrEqual(3);
    expect(exports).toEqual(metrics);
    expect(together(records, { maxTracked: 3 })).toEqual([metrics, metrics]);
  });

  it('differ only by the warm-up, which the exports count and the report leaves out', () => {
    const warmupMs = 2000;
    const [metrics, exports] = together(records, { warmupMs });
    expect(exports).toEqual(separately(records)[1]);
    const m = new FoldedMetrics({ warmupMs });
    for (const r of records) m.add(r);
    expect(metrics).toEqual(fromMetrics(m));
    expect(metrics.submitted).toBeLessThan(exports.submitted);
  });

  it('refuse a fold whose warm-up is not the metrics’ own', () => {
    const m = new RunMetrics({ startedAtMs: 0, warmupMs: 1000 });
    const record = records.find((r) => r.type === 'exchange');
    if (!record) throw new Error('the fixture has exchanges');
    expect(() => m.add(record, new JobFold().add(record))).toThrow(/warm-up/);
  });
});
