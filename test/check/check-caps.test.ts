import { describe, expect, it } from 'vitest';
import type { Check } from '../../src/check/check.js';
import type { CheckResult } from '../../src/check/checker.js';
import type { RunLimits } from '../../src/core/run-limits.js';
import { ex, job, runRecord } from './records.js';
import { health, queued } from './scaling-outcome.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * Issue 52: what the checks keep per job and per /health sample is capped, so a soak's memory stays
 * flat, and each cap that dropped detail says how much in the check result (then the summary's
 * `caps`). Proven with small limits: the stores never hold more than their cap, whatever the
 * number of jobs, and the counts are exact.
 */

/** A check that reads how many jobs the book holds in full after each record. */
function bookSize(): { check: Check; most: () => number } {
  let most = 0;
  return {
    check: {
      name: 'book-size',
      ids: [],
      add: (_, ctx) => {
        most = Math.max(most, ctx.jobs.size);
      },
    },
    most: () => most,
  };
}

/** `n` jobs submitted 10 ms apart, none ever seen again (a queue with no workers). */
function unfinished(limits: Partial<RunLimits>, n: number, checks?: Check[]): CheckResult {
  const c = new FoldedChecker(runRecord(), { limits, ...(checks ? { checks } : {}) });
  for (let i = 0; i < n; i++) c.add(queued(`j${String(i)}`, i * 10));
  return c.finish();
}

describe('the caps on what the checks keep', () => {
  it('holds at most checkJobsHeld jobs in full, and counts those retired early for it', () => {
    const size = bookSize();
    const result = unfinished({ checkJobsHeld: 3 }, 10, [size.check]);
    expect(size.most()).toBe(3);
    expect(result.caps).toEqual([{ id: 'checks.held', limit: 3, dropped: 7 }]);
  });

  it('keeps at most checkJobsBrief retired jobs in brief, and counts those forgotten for it', () => {
    // Retired early past 2 held: 8 of 10 go to the brief store of 3, which forgets 5 of them.
    const result = unfinished({ checkJobsHeld: 2, checkJobsBrief: 3 }, 10);
    expect(result.caps).toEqual([
      { id: 'checks.held', limit: 2, dropped: 8 },
      { id: 'checks.brief', limit: 3, dropped: 5 },
    ]);
  });

  it('judges a job forgotten by the brief store as one not seen before, and one still kept as before', () => {
    // A job folded final, then asked for again: kept in brief, its final state stands (a later
    // IN_PROGRESS goes backwards); forgotten, nothing is known to judge it against.
    const backwards = (kept: number): number => {
      const c = new FoldedChecker(runRecord(), { limits: { checkJobsHeld: 1, checkJobsBrief: kept } });
      c.add(ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }));
      c.add(ex('status', 10, 200, job('a', 'COMPLETED'), { jobId: 'a' }));
      for (let i = 0; i < 3; i++) c.add(queued(`other${String(i)}`, 20 + i));
      c.add(ex('status', 100, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }));
      const r = c.finish();
      return r.violations.filter((v) => v.id.startsWith('transition.')).reduce((n, v) => n + v.count, 0);
    };
    expect(backwards(10)).toBe(1);
    expect(backwards(1)).toBe(0);
  });

  it('judges the first scalingSamples /health samples and counts the rest', () => {
    const c = new FoldedChecker(runRecord({ scaling: { workersMax: 1, source: 'scenario' } }), {
      limits: { scalingSamples: 4 },
    });
    for (let i = 0; i < 10; i++) c.add(health(i * 1000, { idle: 1 }));
    const result = c.finish();
    expect(result.coverage['scaling.above-max']).toBe(4);
    expect(result.caps).toContainEqual({ id: 'checks.scaling-samples', limit: 4, dropped: 6 });
  });

  it('keeps the first healthSamples /health samples for health.jobs-mismatch and counts the rest', () => {
    const c = new FoldedChecker(runRecord(), { limits: { healthSamples: 2 } });
    for (let i = 0; i < 5; i++) c.add(health(i * 1000, { idle: 1 }));
    expect(c.finish().caps).toContainEqual({ id: 'checks.health-samples', limit: 2, dropped: 3 });
  });

  it('gives up on the oldest of more than queuedJobs jobs in the queue at once, and counts them', () => {
    const result = unfinished({ queuedJobs: 4 }, 10);
    expect(result.caps).toContainEqual({ id: 'checks.queued', limit: 4, dropped: 6 });
  });

  it('reports no cap when none was reached', () => {
    expect(unfinished({}, 10).caps).toBeUndefined();
  });
});
