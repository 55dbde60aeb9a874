import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { JobFold } from '../../src/fold/job-fold.js';
import { loadFixtureRecords } from '../report/fixtures/fixture-summary.js';
import { checkWithFacts } from './book-facts.js';
import { ex, job, runRecord } from './records.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * Issue 33, one job fold: the checks' job book takes which job a record is about, the state it
 * showed and whether it submitted the job from the job fold's events, the same ones the metrics
 * count; handed them (a run session), the checker folds nothing itself.
 */

/** Two jobs: one completes, the other is seen running, then /status answers 404 for it. */
function lostAndCompleted(): JobstormRecord[] {
  return [
    runRecord(),
    ex('run', 0, 200, job('j1', 'IN_QUEUE')),
    ex('run', 10, 200, job('j2', 'IN_QUEUE')),
    ex('status', 100, 200, job('j1', 'IN_PROGRESS'), { jobId: 'j1' }),
    ex('status', 150, 200, job('j2', 'COMPLETED', { delayTime: 5, executionTime: 20 }), { jobId: 'j2' }),
    ex('status', 200, 404, { error: 'not found' }, { jobId: 'j1' }),
  ];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the checker and the metrics read jobs from one fold', () => {
  it('agree on jobs submitted, final by state and lost', () => {
    const records = lostAndCompleted();
    const metrics = new FoldedMetrics();
    for (const r of records) metrics.add(r);
    const jobs = metrics.jobCounts();
    const { result, facts } = checkWithFacts(records);
    expect(jobs).toMatchObject({ submitted: 2, lost: 1, byState: { COMPLETED: 1 } });
    expect(facts.submitted).toBe(jobs.submitted);
    expect(facts.byState).toEqual(jobs.byState);
    // The metrics' lost job is the one the lost-job rule reports.
    const lost = result.violations.find((g) => g.id === 'lifecycle.lost');
    expect(lost?.count).toBe(jobs.lost);
    expect(lost?.examples[0]?.jobId).toBe('j1');
  });

  it("folds no record itself: the caller's fold is the only one, once per record", () => {
    const records = lostAndCompleted();
    const add = vi.spyOn(JobFold.prototype, 'add');
    checkWithFacts(records);
    // The caller's fold, once per record (the run record included); none by the checker.
    expect(add).toHaveBeenCalledTimes(records.length);
  });

  it('judges the same whatever the warm-up or cap of the fold it is handed (retries, shards, warm jobs)', () => {
    const records = loadFixtureRecords();
    const alone = checkWithFacts(records);
    expect(alone.facts.submitted).toBeGreaterThan(0);
    expect(alone.result.total).toBeGreaterThan(0);
    for (const fold of [{}, { warmupMs: 1000 }, { warmupMs: 5000 }, { maxTracked: 3 }]) {
      const handed = checkWithFacts(records, fold);
      expect(handed.result).toEqual(alone.result);
      expect(handed.facts).toEqual(alone.facts);
    }
  });
});
