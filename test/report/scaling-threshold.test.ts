import { describe, expect, it } from 'vitest';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { ConfigError } from '../../src/core/config-error.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { getReporter } from '../../src/report/reporter-registry.js';
import { renderTerminalSummary } from '../../src/report/report-writer.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { BURST, RUN, burstRecords, health } from '../metrics/scaling-fixture.js';
import { FoldedMetrics } from '../helpers/folded.js';

function summaryOf(records: readonly JobstormRecord[], expressions: string[], price?: number) {
  const m = new FoldedMetrics(
    price === undefined ? {} : { price: { pricePerWorkerSecond: price, currency: 'USD' } },
  );
  for (const r of records) m.add(r);
  return buildSummary({ run: records[0] as RunRecord, metrics: m, thresholds: parseThresholds(expressions) });
}

const byExpr = (s: ReturnType<typeof summaryOf>, e: string) => s.thresholds.find((t) => t.expression === e);

describe('thresholds on scaling figures', () => {
  // The burst's figures: lag 2 s, drain 4 s, 31 worker-s, peak 4, cost 7.75 per 1,000 at 0.001/worker-s.
  const exact = [
    'max(scaleUpLag) <= 2s',
    'p90(scaleUpLag) == 2000ms',
    'count(scaleUpLag) == 1',
    'drainTime <= 4s',
    'workerSeconds == 31',
    'peakWorkers <= 4',
    'coldStartShare >= 75%',
    'costPer1kJobs <= 7.75',
  ];
  const justOver = [
    'max(scaleUpLag) < 2s',
    'drainTime < 4s',
    'workerSeconds < 31',
    'peakWorkers < 4',
    'costPer1kJobs < 7.75',
  ];

  it('a value exactly on the target holds with <= and ==, fails with <', () => {
    const s = summaryOf(burstRecords(), [...exact, ...justOver], 0.001);
    for (const e of exact) expect(byExpr(s, e), e).toMatchObject({ ok: true });
    for (const e of justOver) expect(byExpr(s, e), e).toMatchObject({ ok: false });
    expect(byExpr(s, 'drainTime <= 4s')).toMatchObject({ value: 4000, unit: 'ms' });
    expect(byExpr(s, 'coldStartShare >= 75%')).toMatchObject({ value: 0.75, unit: 'ratio' });
    expect(s.verdict.status).toBe('failed');
  });

  it('a figure not measured is not evaluated, with the reason, and the run is not a pass', () => {
    const rows = BURST.map(([t, i, r, , q, p]) => health([t, i, r, undefined, q, p]));
    const s = summaryOf(
      [RUN, ...rows],
      ['coldStartShare < 50%', 'costPer1kJobs < 0.50', 'peakWorkers <= 12'],
    );
    expect(byExpr(s, 'coldStartShare < 50%')).toEqual({
      expression: 'coldStartShare < 50%',
      value: null,
      ok: false,
      unit: 'ratio',
      notEvaluated: "the target's /health has no workers.initializing",
    });
    expect(byExpr(s, 'costPer1kJobs < 0.50')?.notEvaluated).toBe(
      'no scaling.pricePerWorkerSecond in the scenario',
    );
    expect(byExpr(s, 'peakWorkers <= 12')).toMatchObject({ value: 4, ok: true });
    expect(s.verdict.status).toBe('inconclusive');
    expect(s.verdict.reasons).toContain(
      `threshold "coldStartShare < 50%" not evaluated: the target's /health has no workers.initializing; not a pass`,
    );
    // Every report says so rather than showing a value.
    expect(renderTerminalSummary(s)).toContain(
      "✗ coldStartShare < 50%  (not evaluated: the target's /health has no workers.initializing)",
    );
    expect(getReporter('markdown').render(s)).toContain(
      "not evaluated: the target's /health has no workers.initializing",
    );
    expect(getReporter('junit').render(s)).toContain('type="not-evaluated"');
  });

  it('without any /health, a scaling threshold is not evaluated, never passed', () => {
    const s = summaryOf([RUN], ['max(scaleUpLag) < 30s', 'workerSeconds < 500']);
    for (const t of s.thresholds) {
      expect(t).toMatchObject({
        value: null,
        ok: false,
        notEvaluated: 'the run took no /health sample with worker counts',
      });
    }
  });

  it('round-trips through summary.json and merges, judged the same', () => {
    const s = summaryOf(burstRecords(), exact, 0.001);
    const back = parseSummary(JSON.parse(JSON.stringify(s)), 'summary.json');
    expect(back.scaling).toEqual(s.scaling);
    expect(mergeSummaries([back]).thresholds).toEqual(s.thresholds);
  });

  it('the grammar: bare figures take their unit; misuse is a clear error', () => {
    const [lag, drain, cost] = parseThresholds([
      'p90(scaleUpLag) < 20s',
      'drainTime < 1m',
      'costPer1kJobs < 0.50',
    ]);
    expect(lag).toMatchObject({
      aggregation: { kind: 'percentile', percentile: 90 },
      unit: 'ms',
      target: 20_000,
    });
    expect(drain).toMatchObject({ aggregation: { kind: 'value' }, unit: 'ms', target: 60_000 });
    expect(cost).toMatchObject({ aggregation: { kind: 'value' }, unit: 'count', target: 0.5 });
    const bad = (e: string | { expression: string; window: string }) => {
      try {
        parseThresholds([e]);
      } catch (err) {
        return (err as ConfigError).issues.map((i) => i.message).join('\n');
      }
      return 'no error';
    };
    expect(bad('count(drainTime) < 3')).toContain(
      'count() does not apply to "drainTime"; use the bare name (drainTime < ...)',
    );
    expect(bad('drainTime < 60')).toContain('60 has no unit');
    expect(bad('workerSeconds < 5s')).toContain('takes no unit');
    expect(bad('max(scaleUpLag) < 30s over 10s')).toContain('is a whole-run figure');
  });
});
