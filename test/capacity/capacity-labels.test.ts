import { describe, expect, it } from 'vitest';
import { capacityCharts } from '../../src/capacity/capacity-charts.js';
import type { CapacityReport } from '../../src/capacity/index.js';
import { renderCapacityText } from '../../src/capacity/capacity-text.js';
import { STEP_HEADER, costLine, headline, stepRow } from '../../src/capacity/capacity-view.js';
import { fixtureCapacityReport } from './capacity-fixture.js';

/*
 * Issue 47 item 4: capacity said "Highest sustainable rate: 100 jobs/s" for a step that was
 * offered 100 arrivals/s but submitted 87.67 and achieved 86.2 jobs/s, "needs 20 workers" where the
 * step's column said 15–20, and its charts mixed arrivals/s and jobs/s and drew lines across the
 * gaps between steps.
 */

/** The fixture with its capacity step (101.25/s offered) measured as the step was. */
function shortfallReport(): CapacityReport {
  const r = fixtureCapacityReport();
  const step = r.steps.find((s) => s.passed && s.offeredRate === r.capacity);
  if (!step) throw new Error('fixture has no step at its capacity');
  step.submittedRate = 87.67;
  step.achievedRate = 86.2;
  step.workers = { min: 15, max: 20, mean: 17.5 };
  step.cost = { peakWorkers: 20, workerSeconds: 70, costPer1kJobs: 0.42, currency: 'USD' };
  return r;
}

describe('capacity: labels that say what is measured', () => {
  it('the headline names the offered rate as arrivals and gives the submitted and achieved jobs/s beside it', () => {
    const r = shortfallReport();
    expect(headline(r)).toBe(
      'Highest sustainable rate: 101.3 arrivals/s offered (87.67 jobs/s submitted, 86.2 jobs/s achieved); passed at 101.3/s offered, failed at 106.9/s',
    );
    r.verdict = 'at-least';
    expect(headline(r)).toMatch(
      /^Sustainable up to at least 101\.3 arrivals\/s offered \(87\.67 jobs\/s submitted, 86\.2 jobs\/s achieved\)/,
    );
  });

  it('the workers the answer needs are the range the step row shows, not the peak of one sample', () => {
    const r = shortfallReport();
    const step = r.steps.find((s) => s.offeredRate === r.capacity);
    if (!step) throw new Error('no capacity step');
    expect(stepRow(step)[STEP_HEADER.indexOf('workers')]).toBe('15–20');
    const line = costLine(r);
    expect(line).toBe(
      '101.3/s offered needs 15–20 workers running (70.0 worker-s over the step) and costs 0.42 USD per 1,000 jobs',
    );
    expect(renderCapacityText(r)).toContain(line);
    step.workers = { min: 12, max: 12, mean: 12 };
    expect(costLine(r)).toMatch(/needs 12 workers running/);
  });

  it('every step chart says its x is the offered arrivals/s, and the rates axis names both units its legend uses', () => {
    const charts = capacityCharts(fixtureCapacityReport());
    for (const c of charts.filter((x) => x.kind === 'steps'))
      expect(c.xLabel, c.id).toBe('offered rate (arrivals/s)');
    const rates = charts.find((c) => c.id === 'rates');
    if (!rates) throw new Error('no rates chart');
    for (const s of rates.series.filter((x) => !x.pointsOnly)) {
      const unit = /\(([^)]+)\)/.exec(s.label)?.[1] ?? '';
      expect(rates.yLabel.split(', '), s.label).toContain(unit);
    }
  });

  it('the workers chart breaks its lines between steps instead of drawing across the drain', () => {
    const r = fixtureCapacityReport();
    const workers = capacityCharts(r).find((c) => c.id === 'workers');
    if (!workers) throw new Error('no workers chart');
    const stepsRun = new Set(r.health.map((h) => h.step)).size;
    // One gap between each two steps, and every value in it null.
    expect(workers.x).toHaveLength(r.health.length + stepsRun - 1);
    const gaps = workers.x.flatMap((_, i) => (workers.series.every((s) => s.values[i] === null) ? [i] : []));
    expect(gaps).toHaveLength(stepsRun - 1);
    for (const i of gaps) {
      const before = workers.x[i - 1] ?? NaN;
      const after = workers.x[i + 1] ?? NaN;
      expect(workers.x[i]).toBeGreaterThan(before);
      expect(workers.x[i]).toBeLessThan(after);
    }
    expect([...workers.x].sort((a, b) => a - b)).toEqual(workers.x);
  });
});
