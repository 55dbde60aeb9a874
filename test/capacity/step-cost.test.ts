import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/core/record.js';
import { renderCapacityHtml } from '../../src/capacity/capacity-html.js';
import { renderCapacityMarkdown } from '../../src/capacity/capacity-markdown.js';
import { renderCapacityText } from '../../src/capacity/capacity-text.js';
import { costLine, formatStepRate, stepRow, STEP_HEADER } from '../../src/capacity/capacity-view.js';
import { stepCost } from '../../src/capacity/step-cost.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { burstRecords } from '../metrics/scaling-fixture.js';
import { fixtureCapacityReport } from './capacity-fixture.js';
import { FoldedMetrics } from '../helpers/folded.js';

function burstSummary(price?: number) {
  const records = burstRecords();
  const m = new FoldedMetrics(
    price === undefined ? {} : { price: { pricePerWorkerSecond: price, currency: 'USD' } },
  );
  for (const r of records) m.add(r);
  return buildSummary({ run: records[0] as RunRecord, metrics: m });
}

describe('capacity: workers and cost per step', () => {
  it('a step counts worker-seconds over its measured window only, and the cost per 1,000 jobs', () => {
    // Window t=2..10 s of the constructed burst: seven seconds of 4 workers, one of 1; 4 jobs completed.
    const cost = stepCost(burstSummary(0.001), 2000, 10_000);
    expect(cost).toMatchObject({ peakWorkers: 4, workerSeconds: 29, currency: 'USD' });
    expect(cost.costPer1kJobs).toBeCloseTo(7.25, 10);
    // The whole step would have counted the two seconds of one worker before it too.
    expect(stepCost(burstSummary(0.001), 0, 10_000).workerSeconds).toBe(31);
  });

  it('without a price, or without /health, the cost says why', () => {
    expect(stepCost(burstSummary(), 0, 10_000)).toMatchObject({
      workerSeconds: 31,
      costPer1kJobs: null,
      notMeasured: 'no scaling.pricePerWorkerSecond in the scenario',
    });
  });

  it('the answer reads "N/s offered needs W workers running and costs X per 1,000" in every capacity report', () => {
    const r = fixtureCapacityReport();
    const passing = r.steps.filter((s) => s.passed).at(-1);
    if (!passing) throw new Error('fixture has no passing step');
    passing.cost = { peakWorkers: 12, workerSeconds: 96, costPer1kJobs: 0.42, currency: 'USD' };
    const line = costLine(r);
    expect(line).toBe(
      `${formatStepRate(passing.offeredRate)}/s offered needs 10 workers running (96.0 worker-s over the step) and costs 0.42 USD per 1,000 jobs`,
    );
    expect(renderCapacityText(r)).toContain(line);
    expect(renderCapacityMarkdown(r)).toContain(line);
    expect(renderCapacityHtml(r)).toContain(line);
    const row = stepRow(passing);
    expect(row[STEP_HEADER.indexOf('worker-s')]).toBe('96.0');
    expect(row[STEP_HEADER.indexOf('cost/1k jobs')]).toBe('0.42 USD');
    // A report written before steps carried cost shows dashes and no cost line.
    delete passing.cost;
    expect(costLine(r)).toBeUndefined();
    expect(stepRow(passing)[STEP_HEADER.indexOf('worker-s')]).toBe('–');
  });
});
