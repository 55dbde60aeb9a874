import { describe, expect, it } from 'vitest';
import type { FinalState } from '../../src/metrics/metrics-data.js';
import type { OperationSecondView, SecondSource, SecondView } from '../../src/metrics/second-series.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';
import { parseThresholds, type Comparator, type Threshold } from '../../src/report/threshold.js';
import { perSecondProblem, secondReader, type SecondReader } from '../../src/report/threshold-readers.js';
import { ThresholdTally } from '../../src/report/threshold-tally.js';
import { judgeWindows, windowFrame } from '../../src/report/threshold-windows.js';

/*
 * The window judge's parts one at a time, on per-second data laid out by hand (issue 39: the
 * mutants a whole report's tests let through): which window is the worst for each comparator, how
 * failing windows join into spans, the tally's percentile, and what each reader takes from a second.
 */

const FINALS: Record<FinalState, number> = { COMPLETED: 0, FAILED: 0, CANCELLED: 0, TIMED_OUT: 0 };

function view(over: Partial<SecondView> = {}): SecondView {
  return { submitted: 0, dropped: 0, finals: FINALS, ops: new Map(), ...over };
}

/** Seconds 100, 101, ... holding `submitted` jobs each (a count per second). */
function jobsPerSecond(counts: readonly number[]): SecondSource {
  return {
    span: () => (counts.length === 0 ? undefined : { first: 100, last: 100 + counts.length - 1 }),
    second: (sec) => view({ submitted: counts[sec - 100] ?? 0 }),
  };
}

const submitted: SecondReader = (s) => ({ count: s.submitted, base: s.submitted });

function windowed(comparator: Comparator, target: number, windowS = 1): Threshold & { windowS: number } {
  const [t] = parseThresholds([`count(jobs) ${comparator} ${String(target)} over ${String(windowS)}s`]);
  if (!t) throw new Error('no threshold');
  return { ...t, windowS };
}

const FRAME = { baseSec: 100, firstSec: 100 };

describe('the worst window', () => {
  it.each([
    ['<', 100, 9],
    ['<=', 100, 9],
    ['>', 0, 2],
    ['>=', 0, 2],
  ] as const)('for "%s" is the one furthest from passing', (c, target, worst) => {
    const v = judgeWindows(windowed(c, target), submitted, jobsPerSecond([5, 9, 2, 7]), FRAME);
    expect(v.value).toBe(worst);
    expect(v.ok).toBe(true);
  });

  it('on a tie is the earlier window, for either direction', () => {
    const above = judgeWindows(windowed('>', 0), submitted, jobsPerSecond([2, 5, 2]), FRAME);
    expect(above.window.worst).toEqual({ at: 0, value: 2 });
    const below = judgeWindows(windowed('<', 100), submitted, jobsPerSecond([5, 2, 5]), FRAME);
    expect(below.window.worst).toEqual({ at: 0, value: 5 });
  });

  it('for "==" and "!=" is the first that fails, once one does', () => {
    const eq = judgeWindows(windowed('==', 5), submitted, jobsPerSecond([5, 9, 2, 5]), FRAME);
    expect(eq.window.worst).toEqual({ at: 1, value: 9 });
    const ne = judgeWindows(windowed('!=', 5), submitted, jobsPerSecond([4, 5, 5, 6]), FRAME);
    expect(ne.window.worst).toEqual({ at: 1, value: 5 });
    const holds = judgeWindows(windowed('!=', 5), submitted, jobsPerSecond([4, 6]), FRAME);
    expect(holds.window.worst).toEqual({ at: 0, value: 4 });
  });
});

describe('failing windows', () => {
  it('join into one span when they touch, and stay apart when a passing window lies between', () => {
    const v = judgeWindows(windowed('<', 5), submitted, jobsPerSecond([9, 9, 1, 9]), FRAME);
    expect(v.window.failing).toEqual([
      [0, 2],
      [3, 4],
    ]);
    expect(v.window.failed).toBe(3);
    expect(v.ok).toBe(false);
  });

  it('a series with no second at all judges nothing, and fails', () => {
    const v = judgeWindows(windowed('<', 5), submitted, jobsPerSecond([]), FRAME);
    expect(v).toEqual({
      value: null,
      ok: false,
      window: { seconds: 1, judged: 0, failed: 0, worst: null, failing: [] },
    });
  });
});

describe('the window frame', () => {
  it('starts at the run’s own second without a warm-up, even when the run starts mid-second', () => {
    expect(windowFrame(1_500)).toEqual({ baseSec: 1, firstSec: 1 });
    expect(windowFrame(1_500, 0)).toEqual({ baseSec: 1, firstSec: 1 });
    expect(windowFrame(1_500, 1_000)).toEqual({ baseSec: 1, firstSec: 3 });
  });
});

describe('the tally’s percentile', () => {
  it('ranks buckets by latency, not by the order seconds brought them', () => {
    const tally = new ThresholdTally();
    tally.push({ count: 1, base: 1, buckets: [[500, 1]] });
    tally.push({ count: 1, base: 1, buckets: [[40, 1]] });
    tally.push({ count: 1, base: 1, buckets: [[300, 1]] });
    const p = (percentile: number): number | null =>
      tally.value({ kind: 'percentile', percentile, label: '' });
    expect(p(0)).toBe(SparseHistogram.bucketMs(40));
    expect(p(50)).toBe(SparseHistogram.bucketMs(300));
    expect(p(100)).toBe(SparseHistogram.bucketMs(500));
  });

  it('stops at the bucket that reaches the rank exactly', () => {
    const tally = new ThresholdTally();
    tally.push({ count: 2, base: 2, buckets: [[10, 1]] });
    tally.push({ count: 2, base: 2, buckets: [[90, 1]] });
    expect(tally.value({ kind: 'percentile', percentile: 50, label: 'p50' })).toBe(
      SparseHistogram.bucketMs(10),
    );
    expect(tally.value({ kind: 'rps' })).toBe(2);
  });
});

function op(requests: number, outcomes: Partial<OperationSecondView['outcomes']> = {}): OperationSecondView {
  const empty = new SparseHistogram();
  return { requests, outcomes, latency: empty } as unknown as OperationSecondView;
}

function readerOf(expression: string): SecondReader {
  const [t] = parseThresholds([expression]);
  if (!t) throw new Error('no threshold');
  const r = secondReader(t);
  if (typeof r === 'string') throw new Error(r);
  return r;
}

describe('what each reader takes from a second', () => {
  const second = view({
    submitted: 7,
    dropped: 3,
    finals: { COMPLETED: 6, FAILED: 2, CANCELLED: 1, TIMED_OUT: 1 },
    ops: new Map([
      ['run', op(10, { '2xx': 8, error: 2 })],
      ['status', op(30, { '2xx': 30 })],
    ]),
  });

  it('latency and requests read every operation; an operation’s own name reads that one', () => {
    expect(readerOf('count(latency) > 0 over 1s')(second)).toEqual({ count: 40, base: 40 });
    expect(readerOf('count(requests) > 0 over 1s')(second)).toEqual({ count: 40, base: 40 });
    expect(readerOf('count(run) > 0 over 1s')(second)).toEqual({ count: 10, base: 10 });
  });

  it('jobs and dropped are counters of their own; a job rate is over the jobs ended that second', () => {
    expect(readerOf('count(jobs) > 0 over 1s')(second)).toEqual({ count: 7, base: 7 });
    expect(readerOf('count(dropped) > 0 over 1s')(second)).toEqual({ count: 3, base: 3 });
    expect(readerOf('rate(failed) < 1% over 1s')(second)).toEqual({ count: 2, base: 10 });
    expect(readerOf('rate(timed_out) < 1% over 1s')(second)).toEqual({ count: 1, base: 10 });
  });

  it('min is a percentile a window can read (0), mean is not', () => {
    expect(() => readerOf('min(run) < 5ms over 1s')).not.toThrow();
    expect(() => parseThresholds(['mean(run) < 5ms over 1s'])).toThrow(/mean is not kept per second/);
  });

  it('a violation metric has no reader, and the problem names where it was asked for', () => {
    const [t] = parseThresholds(['count(violation:transition.*) == 0']);
    if (!t) throw new Error('no threshold');
    expect(secondReader(t)).toMatch(/violations are not kept per second/);
    expect(perSecondProblem({ ...t, windowS: 5 })).toMatch(/^cannot be judged over a window: violations/);
    expect(perSecondProblem(t)).toMatch(/^cannot be judged live \(abortOnFail\): violations/);
    expect(secondReader({ ...t, metric: 'lost', aggregation: { kind: 'rate' } })).toBe(
      '"lost" is not kept per second',
    );
  });
});
