import { describe, expect, it } from 'vitest';
import { littleCheck } from '../../src/capacity/little-law.js';
import { QueueWatch, queueTrend, slopePerSec } from '../../src/capacity/queue-trend.js';
import { timedReadingOf, type TimedReading } from '../../src/capacity/timed-reading.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';

/** One sample a second with these queue depths. */
function samples(depths: readonly number[], inProgress = 10): TimedReading[] {
  return depths.map((inQueue, i) => ({ atMs: i * 1000, inQueue, inProgress, running: 10, idle: 0 }));
}

describe('queue steadiness from /health samples', () => {
  it('slope is in jobs per second and needs three samples', () => {
    expect(
      slopePerSec([
        { x: 0, y: 0 },
        { x: 1000, y: 5 },
        { x: 2000, y: 10 },
      ]),
    ).toBeCloseTo(5);
    expect(
      slopePerSec([
        { x: 0, y: 0 },
        { x: 1000, y: 5 },
      ]),
    ).toBeNull();
  });

  it.each<[string, number[], number, boolean]>([
    ['an empty queue is steady', [0, 0, 0, 0, 0], 100, true],
    ['a wobbling queue is steady', [3, 1, 4, 0, 2], 100, true],
    ['growth under the tolerance (3% of the rate) is steady', [0, 1, 2, 3, 4], 100, true],
    ['growth above it is not', [0, 5, 10, 15, 20], 100, false],
    ['a big queue that drains is steady', [200, 150, 100, 50, 0], 100, true],
    ['jitter of one job on a slow rate is not growth', [0, 0, 1, 1, 2], 2, true],
  ])('%s', (_name, depths, rate, steady) => {
    expect(queueTrend(samples(depths), rate, 0.03).steady).toBe(steady);
  });

  it('QueueWatch calls a queue unbounded after four rises past rate × seconds', () => {
    const watch = new QueueWatch(10, 2);
    const verdicts = [0, 5, 10, 15, 19, 25, 30].map((d, i) =>
      watch.add({ atMs: i * 1000, inQueue: d, inProgress: 0, running: 1, idle: 0 }),
    );
    // Rises at 5, 10, 15, 19 (four in a row) but 19 < 20 queued; 25 is the first over 10/s × 2 s.
    expect(verdicts).toEqual([false, false, false, false, false, true, true]);
    const flat = new QueueWatch(10, 2);
    expect(
      [50, 60, 60, 70, 80, 90].map((d, i) =>
        flat.add({ atMs: i, inQueue: d, inProgress: 0, running: 1, idle: 0 }),
      ),
    ).toEqual([false, false, false, false, false, false]);
  });

  it('reads /health bodies, and nothing from other answers', () => {
    const base: ExchangeRecord = {
      v: 1,
      type: 'exchange',
      seq: 1,
      op: 'health',
      method: 'GET',
      path: '/health',
      intendedAt: 0,
      sentAt: 10,
      endAt: 20,
      status: 200,
      reqBytes: 0,
      resBytes: 10,
    };
    const body = {
      jobs: { completed: 5, failed: 1, inProgress: 2, inQueue: 3, retried: 0 },
      workers: { idle: 1, running: 2 },
    };
    expect(timedReadingOf({ ...base, body })).toEqual({
      atMs: 15,
      inQueue: 3,
      inProgress: 2,
      running: 2,
      idle: 1,
      completed: 5,
      failed: 1,
      retried: 0,
    });
    expect(timedReadingOf({ ...base, status: 500, body })).toBeUndefined();
    expect(timedReadingOf({ ...base, op: 'status', body })).toBeUndefined();
    expect(timedReadingOf({ ...base, body: { jobs: {} } })).toBeUndefined();
  });
});

describe("Little's law cross-check", () => {
  const summary = (delayMean: number, execMean: number): Summary =>
    ({
      jobs: {
        delayTime: { percentiles: { count: 10, mean: delayMean } },
        executionTime: { percentiles: { count: 10, mean: execMean } },
        e2eAll: { count: 10, mean: delayMean + execMean + 50 },
      },
    }) as unknown as Summary;

  it('compares jobs in system with rate × time in system', () => {
    // 100 jobs/s × (0.05 s queued + 0.1 s running) = 15 jobs; /health saw 10 + 5 on average.
    const c = littleCheck(samples([5, 5, 5], 10), 100, summary(50, 100));
    expect(c).toEqual({
      observed: 15,
      predicted: 15,
      ratio: 1,
      timeInSystemMs: 150,
      timeFrom: 'delay+execution',
    });
  });

  it('is absent without samples or a rate', () => {
    expect(littleCheck([], 100, summary(50, 100))).toBeNull();
    expect(littleCheck(samples([1]), null, summary(50, 100))).toBeNull();
  });
});
