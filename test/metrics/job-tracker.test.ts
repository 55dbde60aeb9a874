import { describe, expect, it } from 'vitest';
import type { FinalState } from '../../src/core/job-status.js';
import { JobEvents } from '../../src/fold/job-events.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import { JobTracker } from '../../src/metrics/job-tracker.js';
import type { JobsData } from '../../src/metrics/metrics-data.js';

/*
 * The job counts and timings, fed JobFold's events by hand (issue 39): which event counts what,
 * what the warm-up leaves out, how an eviction and a loss close a job, and that merge and the JSON
 * round trip keep every figure.
 */

type Facts = Partial<
  Pick<
    JobEvents,
    | 'opened'
    | 'firstChunk'
    | 'final'
    | 'lost'
    | 'warm'
    | 'sinceOpenMs'
    | 'delayMs'
    | 'executionMs'
    | 'evicted'
    | 'evictedWarm'
  >
>;

function events(facts: Facts): JobEvents {
  const ev = new JobEvents(0);
  Object.assign(ev, facts);
  return ev;
}

function tracked(list: readonly Facts[]): JobTracker {
  const t = new JobTracker();
  for (const f of list) t.add(events(f));
  return t;
}

/** A histogram's count and p100 (ms, to the histogram's precision), or 0/0 when empty. */
function summary(encoded: string): { count: number; maxMs: number } {
  const h = LatencyHistogram.decode(encoded);
  return { count: h.count, maxMs: h.count === 0 ? 0 : Math.round(h.percentileMs(100)) };
}

const NONE = { count: 0, maxMs: 0 };

describe('JobTracker', () => {
  it('counts a submission and a retry as openings, each open until it ends', () => {
    const t = tracked([{ opened: 'submit' }, { opened: 'retry' }, { opened: 'submit' }]);
    expect(t.toJSON()).toMatchObject({ submitted: 2, retried: 1, unfinished: 3, lost: 0, untracked: 0 });
  });

  it('closes a job at its final state with its end-to-end time, delay and execution', () => {
    const t = tracked([
      { opened: 'submit' },
      { opened: 'submit' },
      { final: 'COMPLETED', sinceOpenMs: 500, delayMs: 120, executionMs: 300 },
      { final: 'FAILED', sinceOpenMs: 900 },
    ]);
    const d = t.toJSON();
    expect(d.byState).toEqual({ COMPLETED: 1, FAILED: 1, CANCELLED: 0, TIMED_OUT: 0 });
    expect(d.unfinished).toBe(0);
    expect(summary(d.e2e.COMPLETED)).toEqual({ count: 1, maxMs: 500 });
    expect(summary(d.e2e.FAILED)).toEqual({ count: 1, maxMs: 900 });
    expect(summary(d.e2e.CANCELLED)).toEqual(NONE);
    // Only the answer that carried them adds a delay and an execution time.
    expect(summary(d.delayTime)).toEqual({ count: 1, maxMs: 120 });
    expect(summary(d.executionTime)).toEqual({ count: 1, maxMs: 300 });
  });

  it('records a zero delay and execution (present, not missing)', () => {
    const d = tracked([
      { opened: 'submit' },
      { final: 'COMPLETED', sinceOpenMs: 5, delayMs: 0, executionMs: 0 },
    ]).toJSON();
    expect(summary(d.delayTime).count).toBe(1);
    expect(summary(d.executionTime).count).toBe(1);
  });

  it('times the first chunk from the opening', () => {
    const d = tracked([
      { opened: 'submit' },
      { firstChunk: true, sinceOpenMs: 250 },
      { sinceOpenMs: 400 },
    ]).toJSON();
    expect(summary(d.firstChunk)).toEqual({ count: 1, maxMs: 250 });
    expect(d.unfinished).toBe(1);
  });

  it('closes a lost job without a final state', () => {
    const d = tracked([{ opened: 'submit' }, { opened: 'submit' }, { lost: true }]).toJSON();
    expect(d).toMatchObject({ lost: 1, unfinished: 1 });
    expect(Object.values(d.byState)).toEqual([0, 0, 0, 0]);
  });

  it('leaves out everything of a job opened in the warm-up', () => {
    const d = tracked([
      { opened: 'submit', warm: true },
      { firstChunk: true, sinceOpenMs: 10, warm: true },
      { lost: true, warm: true },
      { final: 'COMPLETED', sinceOpenMs: 50, delayMs: 5, executionMs: 5, warm: true },
    ]).toJSON();
    expect(d).toMatchObject({ submitted: 0, retried: 0, lost: 0, unfinished: 0, untracked: 0 });
    expect(d.byState.COMPLETED).toBe(0);
    expect([d.e2e.COMPLETED, d.delayTime, d.executionTime, d.firstChunk]).toEqual(['', '', '', '']);
  });

  it('counts a measured job pushed out for the cap as untracked, no longer open; a warm one not at all', () => {
    const t = tracked([
      { opened: 'submit' },
      // The next opening evicts the first job.
      { opened: 'submit', evicted: true },
      { opened: 'submit', evicted: true, evictedWarm: true },
    ]);
    expect(t.toJSON()).toMatchObject({ submitted: 3, untracked: 1, unfinished: 2 });
    // An eviction by a warm record still counts the measured job it pushed out.
    const warm = tracked([{ opened: 'submit' }, { opened: 'submit', warm: true, evicted: true }]);
    expect(warm.toJSON()).toMatchObject({ submitted: 1, untracked: 1, unfinished: 0 });
  });

  it('merges two trackers: counts add, the other’s open jobs join the unfinished', () => {
    const a = tracked([
      { opened: 'submit' },
      { opened: 'submit' },
      { final: 'CANCELLED', sinceOpenMs: 70, delayMs: 7, executionMs: 17 },
      { opened: 'submit' },
      { firstChunk: true, sinceOpenMs: 30 },
    ]);
    const b = tracked([
      { opened: 'retry' },
      { opened: 'submit' },
      { opened: 'submit', evicted: true },
      { lost: true },
      { final: 'TIMED_OUT', sinceOpenMs: 900, delayMs: 90, executionMs: 800 },
      { firstChunk: true, sinceOpenMs: 60 },
    ]);
    const expected: Partial<JobsData> = {
      submitted: 5,
      retried: 1,
      lost: 1,
      untracked: 1,
      unfinished: 2,
      byState: { COMPLETED: 0, FAILED: 0, CANCELLED: 1, TIMED_OUT: 1 },
    };
    const ab = tracked([]);
    ab.merge(a);
    ab.merge(b);
    const d = ab.toJSON();
    expect(d).toMatchObject(expected);
    expect(ab.unfinished).toBe(2);
    expect(summary(d.e2e.CANCELLED)).toEqual({ count: 1, maxMs: 70 });
    expect(summary(d.e2e.TIMED_OUT)).toEqual({ count: 1, maxMs: 900 });
    expect(summary(d.delayTime)).toEqual({ count: 2, maxMs: 90 });
    expect(summary(d.executionTime)).toEqual({ count: 2, maxMs: 800 });
    expect(summary(d.firstChunk)).toEqual({ count: 2, maxMs: 60 });
    // A tracker with open jobs of its own keeps them apart from the carried ones.
    a.merge(b);
    expect(a.toJSON()).toMatchObject(expected);
  });

  it('survives a JSON round trip, its unfinished jobs carried', () => {
    const t = tracked([
      { opened: 'submit' },
      { opened: 'retry' },
      { opened: 'submit', evicted: true },
      { final: 'COMPLETED', sinceOpenMs: 40, delayMs: 4, executionMs: 14 },
      { firstChunk: true, sinceOpenMs: 20 },
      { lost: true },
    ]);
    const d = t.toJSON();
    expect(d).toMatchObject({ submitted: 2, retried: 1, untracked: 1, lost: 1, unfinished: 0 });
    const back = JobTracker.fromJSON(JSON.parse(JSON.stringify(d)) as JobsData);
    expect(back.toJSON()).toEqual(d);
    const open = tracked([{ opened: 'submit' }, { opened: 'submit' }]);
    const carried = JobTracker.fromJSON(open.toJSON());
    expect(carried.unfinished).toBe(2);
    // A carried job that ends later in this tracker is not its own: it stays carried.
    carried.add(events({ opened: 'submit' }));
    expect(carried.toJSON()).toMatchObject({ submitted: 3, unfinished: 3 });
    for (const s of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as FinalState[]) {
      const one = tracked([{ opened: 'submit' }, { final: s, sinceOpenMs: 10 }]).toJSON();
      const again = JobTracker.fromJSON(one).toJSON();
      expect(again.byState[s]).toBe(1);
      expect(summary(again.e2e[s]).count).toBe(1);
    }
  });
});
