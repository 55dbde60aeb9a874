import { describe, expect, it } from 'vitest';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { thresholdsFailed, withThresholds } from '../../src/report/summary-thresholds.js';
import type { Summary } from '../../src/report/summary.js';
import { evaluateThresholds, thresholdHistogram } from '../../src/report/threshold-evaluation.js';
import { parseThresholds, type Threshold } from '../../src/report/threshold.js';
import { burstRecords } from '../metrics/scaling-fixture.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * What a threshold reads from a summary, at the edges the golden reports do not reach (issue 39):
 * percentiles over answers or over one status, counters with values of their own, empty
 * denominators, and windowed thresholds whose whole run or reader has nothing to give.
 */

function valueOf(s: Summary, expression: string): number | null {
  const [r] = evaluateThresholds(parseThresholds([expression]), s);
  if (!r) throw new Error('no result');
  return r.value;
}

function one(expression: string): Threshold {
  const [t] = parseThresholds([expression]);
  if (!t) throw new Error('no threshold');
  return t;
}

describe('percentiles of a summary', () => {
  const s = fixtureSummary();
  const e2e = s.jobs.e2eAll;

  it('min, max and mean read the histogram’s own figures, pNN its percentile', () => {
    expect(valueOf(s, 'min(e2e) > 0')).toBeCloseTo(e2e.min, 2);
    expect(valueOf(s, 'p0(e2e) > 0')).toBeCloseTo(e2e.min, 2);
    expect(valueOf(s, 'max(e2e) > 0')).toBeCloseTo(e2e.max, 2);
    expect(valueOf(s, 'mean(e2e) > 0')).toBeCloseTo(e2e.mean, 2);
    expect(valueOf(s, 'p50(e2e) > 0')).toBeCloseTo(e2e.p50, 2);
  });

  it('a job timing of one final status reads that status only', () => {
    const failed = LatencyHistogram.decode(s.jobs.e2e.FAILED.histogram);
    expect(valueOf(s, 'max(e2e{status=FAILED}) > 0')).toBe(failed.maxMs);
    expect(valueOf(s, 'count(e2e{status=FAILED}) > 0')).toBe(6);
    expect(valueOf(s, 'count(e2e) > 0')).toBe(65);
  });

  it('a request percentile is over answers unless it names a status; the error status reads errors', () => {
    const runsync = s.operations.runsync;
    if (!runsync) throw new Error('fixture has runsync');
    const answers = LatencyHistogram.create();
    for (const [name, o] of Object.entries(runsync.outcomes))
      if (name !== 'error') answers.merge(LatencyHistogram.decode(o.intended));
    const errors = runsync.outcomes.error;
    if (!errors) throw new Error('fixture has runsync errors');
    const errorMax = LatencyHistogram.decode(errors.intended).maxMs;
    expect(errorMax).not.toBe(answers.maxMs);
    expect(valueOf(s, 'max(runsync) > 0')).toBe(answers.maxMs);
    expect(valueOf(s, 'max(runsync{status=error}) > 0')).toBe(errorMax);
    expect(valueOf(s, 'count(runsync{status=error}) > 0')).toBe(3);
  });
});

describe('counts and rates of a summary', () => {
  it('each job counter reads its own figure', () => {
    const base = fixtureSummary();
    const s: Summary = {
      ...base,
      jobs: { ...base.jobs, lost: 2, unfinished: 3, retried: 4 },
      webhooks: { ...base.webhooks, received: 5 },
    };
    const values = ['lost', 'unfinished', 'retried', 'webhooks', 'dropped', 'jobs'].map((m) =>
      valueOf(s, `count(${m}) >= 0`),
    );
    expect(values).toEqual([2, 3, 4, 5, 2, 66]);
  });

  it('errors count the requests without an answer, and their rate is over every request', () => {
    const s = fixtureSummary();
    expect(valueOf(s, 'count(errors) >= 0')).toBe(4);
    expect(valueOf(s, 'count(errors{op=runsync}) >= 0')).toBe(3);
    expect(valueOf(s, 'rate(errors{op=runsync}) >= 0')).toBe(3 / 12);
  });

  it('a rate with no requests, and rps over no measured time, have no value and fail', () => {
    const base = fixtureSummary();
    const none: Summary = { ...base, operations: {} };
    expect(evaluateThresholds(parseThresholds(['rate(429) < 1%']), none)).toEqual([
      { expression: 'rate(429) < 1%', value: null, ok: false, unit: 'ratio' },
    ]);
    const instant: Summary = { ...base, run: { ...base.run, durationMs: 0 } };
    expect(valueOf(instant, 'rps(run) >= 0')).toBeNull();
  });
});

describe('the histogram a compare resamples', () => {
  it('exists for latency and job timings only', () => {
    const s = fixtureSummary();
    expect(thresholdHistogram(s, one('count(violations) == 0'))).toBeUndefined();
    expect(thresholdHistogram(s, one('count(violation:transition.*) == 0'))).toBeUndefined();
    expect(thresholdHistogram(s, one('count(lost) == 0'))).toBeUndefined();
    expect(thresholdHistogram(s, one('p99(e2e) < 1s'))?.count).toBe(65);
    expect(thresholdHistogram(s, one('p99(runsync) < 1s'))?.count).toBe(9);
  });
});

describe('windowed thresholds with nothing to read', () => {
  it('a whole run without data fails beside its windows', () => {
    const [r] = evaluateThresholds(parseThresholds(['p99(StartPod) < 1s over 1s']), fixtureSummary());
    expect(r?.wholeRun).toEqual({ value: null, ok: false });
    expect(r?.ok).toBe(false);
  });

  it('a metric no window can read (a threshold built by hand) is judged on no window, and fails', () => {
    const t = { ...one('count(violations) >= 0'), windowS: 5 };
    const [r] = evaluateThresholds([t], fixtureSummary());
    expect(r).toEqual({
      expression: 'count(violations) >= 0',
      value: null,
      ok: false,
      unit: 'count',
      wholeRun: { value: 7, ok: true },
    });
  });
});

describe('a scaling figure measured', () => {
  it('is judged with no not-evaluated note', () => {
    const records: JobstormRecord[] = burstRecords();
    const m = new FoldedMetrics();
    for (const r of records) m.add(r);
    const s = buildSummary({ run: records[0] as RunRecord, metrics: m, thresholds: [] });
    const [r] = evaluateThresholds(parseThresholds(['drainTime <= 4s']), s);
    expect(r).toMatchObject({ value: 4000, ok: true });
    expect(r).not.toHaveProperty('notEvaluated');
  });
});

describe('a summary judged again with more thresholds', () => {
  it('judges an expression given again once, and fails when any threshold fails', () => {
    const s = fixtureSummary();
    const stored = s.thresholds.length;
    const again = s.thresholds[0]?.expression;
    if (again === undefined) throw new Error('the fixture has thresholds');
    const judged = withThresholds(s, parseThresholds([again, 'count(violations) == 7']));
    expect(judged.thresholds.map((t) => t.expression).filter((e) => e === again)).toHaveLength(1);
    expect(judged.thresholds).toHaveLength(stored + 1);
    const ok = withThresholds({ ...s, thresholds: [] }, parseThresholds(['count(violations) == 7']));
    expect(thresholdsFailed(ok)).toBe(false);
    const mixed = withThresholds(
      { ...s, thresholds: [] },
      parseThresholds(['count(violations) == 7', 'count(violations) == 0']),
    );
    expect(thresholdsFailed(mixed)).toBe(true);
  });
});
