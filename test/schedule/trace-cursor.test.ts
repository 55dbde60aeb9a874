import { describe, expect, it } from 'vitest';
import { arrivalSchedule, type ArrivalSchedule, type TraceTimes } from '../../src/schedule/index.js';
import { TraceCursor, type TracePoint } from '../../src/schedule/trace-times.js';

/*
 * A trace phase's rows come from a file: each `points()` opens a pass over it, and a pass left
 * behind must be closed. These fakes count the passes opened and closed, so the tests can hold the
 * cursor to reading forward on one pass and opening another only to go back.
 */
interface CountedTimes extends TraceTimes {
  readonly opened: () => number;
  readonly closed: () => number;
}

/** Rows at these offsets (ms); `goodRows` of them are played before the pass ends early. */
function countedTimes(offsets: readonly number[], passMs: number, goodRows = offsets.length, closable = true): CountedTimes {
  let opened = 0;
  let closed = 0;
  const point = (k: number): TracePoint => ({
    offsetMs: offsets[k] ?? 0,
    row: { line: k + 1, inputTokens: 10 + k, outputTokens: 100 + k },
  });
  return {
    count: offsets.length,
    passMs,
    endMs: offsets.at(-1) ?? 0,
    opened: () => opened,
    closed: () => closed,
    points: (): Iterator<TracePoint> => {
      opened++;
      let k = 0;
      const next = (): IteratorResult<TracePoint> =>
        k < goodRows ? { done: false, value: point(k++) } : { done: true, value: undefined };
      if (!closable) return { next };
      return {
        next,
        return: (): IteratorResult<TracePoint> => {
          closed++;
          return { done: true, value: undefined };
        },
      };
    },
  };
}

const lines = (c: TraceCursor, ks: readonly number[]): (number | undefined)[] => ks.map((k) => c.at(k)?.row.line);

describe('TraceCursor', () => {
  it('walks forward on the one pass opened, returning each row once reached', () => {
    const times = countedTimes([0, 100, 300], 400);
    const c = new TraceCursor(times);
    expect(lines(c, [0, 1, 2])).toEqual([1, 2, 3]);
    expect(c.at(2)?.offsetMs).toBe(300);
    expect(times.opened()).toBe(1);
    expect(times.closed()).toBe(0);
  });

  it('asked the same row again, answers it without a new pass', () => {
    const times = countedTimes([0, 100, 300], 400);
    const c = new TraceCursor(times);
    expect(lines(c, [1, 1, 1])).toEqual([2, 2, 2]);
    expect(times.opened()).toBe(1);
  });

  it('going back closes the pass it leaves and opens a new one', () => {
    const times = countedTimes([0, 100, 300], 400);
    const c = new TraceCursor(times);
    expect(lines(c, [2, 0, 1])).toEqual([3, 1, 2]);
    expect(times.opened()).toBe(2);
    expect(times.closed()).toBe(1);
  });

  it('goes back as well over a pass that cannot be closed (an iterator without return)', () => {
    const times = countedTimes([0, 100, 300], 400, 3, false);
    const c = new TraceCursor(times);
    expect(lines(c, [2, 0])).toEqual([3, 1]);
    expect(times.opened()).toBe(2);
  });

  it('past an early end answers undefined, and still holds its last row without a new pass', () => {
    const times = countedTimes([0, 100, 300, 600], 700, 2);
    const c = new TraceCursor(times);
    expect(c.at(3)).toBeUndefined();
    expect(c.at(2)).toBeUndefined();
    expect(c.at(1)?.row.line).toBe(2);
    expect(times.opened()).toBe(1);
  });
});

describe('trace phases read at random (arrival(hit))', () => {
  const schedule = (times: TraceTimes): ArrivalSchedule =>
    arrivalSchedule([{ kind: 'count', count: 2, rate: 10 }, { kind: 'trace', timeScale: 1, loops: 1 }], {
      traces: (phase) => {
        expect(phase).toBe(1);
        return times;
      },
    });

  it('after another phase, the trace hits count from the phase first index', () => {
    // The count phase takes hits 0 and 1 and lasts 2 / 10 per second = 200 ms.
    const s = schedule(countedTimes([0, 100, 300], 400));
    expect([2, 3, 4].map((h) => s.arrival(h)?.atMs)).toEqual([200, 300, 500]);
    expect([2, 3, 4].map((h) => s.arrival(h)?.trace?.line)).toEqual([1, 2, 3]);
    expect(s.arrival(5)).toBeUndefined();
  });

  it('reads the hits in order on one pass of the file', () => {
    const times = countedTimes([0, 100, 300], 400);
    const s = schedule(times);
    for (const h of [2, 3, 4]) s.arrival(h);
    expect(times.opened()).toBe(1);
    expect(times.closed()).toBe(0);
  });

  it('a pass that ends early has no arrival past its end', () => {
    const s = schedule(countedTimes([0, 100, 300], 400, 1));
    expect(s.arrival(2)?.atMs).toBe(200);
    expect(s.arrival(3)).toBeUndefined();
    expect(s.arrival(4)).toBeUndefined();
  });

  it('names the trace phase (1-based) that was given no rows', () => {
    expect(() =>
      arrivalSchedule([{ kind: 'count', count: 2, rate: 10 }, { kind: 'trace', timeScale: 1, loops: 1 }]),
    ).toThrow(/^phase 2 replays a trace, but no trace rows were given$/);
  });
});

describe('burstiness', () => {
  it('shapes the gamma process only: another process given one is unchanged', () => {
    const phases = [{ kind: 'constant' as const, rate: 50, durationMs: 5_000 }];
    const at = (o: Parameters<typeof arrivalSchedule>[1]): number[] => [...arrivalSchedule(phases, o)].map((a) => a.atMs);
    const plain = at({ process: 'poisson', seed: 3 });
    expect(at({ process: 'poisson', seed: 3, burstiness: 0.3 })).toEqual(plain);
    // The same burstiness does shape gamma: its arrivals are not the Poisson ones.
    expect(at({ process: 'gamma', seed: 3, burstiness: 0.3 })).not.toEqual(plain);
  });
});
