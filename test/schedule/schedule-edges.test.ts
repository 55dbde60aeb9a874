import { describe, expect, it } from 'vitest';
import {
  arrivalSchedule,
  parseShard,
  poissonProcess,
  rateCurve,
  type PhaseShape,
} from '../../src/schedule/index.js';

/* Edges of the schedule (issue 39: survivors of the mutation run in src/schedule/). */
const PHASES: PhaseShape[] = [
  { kind: 'constant', rate: 10, durationMs: 1000 },
  { kind: 'count', count: 3, rate: 5 },
];

describe('parseShard', () => {
  it('reads numbers of any width, and only a whole "i/n"', () => {
    expect(parseShard(' 12/40 ')).toEqual({ index: 12, count: 40 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    for (const bad of ['x1/2', '1/2x', '1/', '/2', '0/3', '4/3', '1/0', '1.5/2'])
      expect(parseShard(bad), bad).toBeUndefined();
  });
});

describe('arrival(hit)', () => {
  const schedule = arrivalSchedule(PHASES, { seed: 7 });
  const all = [...schedule.arrivals()];

  it('gives the hit-th arrival for every hit, and nothing past the last or between two', () => {
    expect(schedule.total).toBe(13);
    expect(all.map((_, hit) => schedule.arrival(hit))).toEqual(all);
    expect(schedule.arrival(schedule.total)).toBeUndefined();
    expect(schedule.arrival(-1)).toBeUndefined();
    expect(schedule.arrival(1.5)).toBeUndefined();
  });

  it('a shard gives its own arrivals, and nothing past its last', () => {
    const shard = schedule.shard(2, 3);
    const mine = [...shard.arrivals()];
    expect(mine.map((a) => a.index)).toEqual([1, 4, 7, 10]);
    expect(mine.map((_, hit) => shard.arrival(hit))).toEqual(mine);
    expect(shard.arrival(mine.length)).toBeUndefined();
  });
});

describe('an arrival process given as an object', () => {
  it('is used as it is, as its registered name would be', () => {
    const byObject = [...arrivalSchedule(PHASES, { seed: 3, process: poissonProcess }).arrivals()];
    const byName = [...arrivalSchedule(PHASES, { seed: 3, process: 'poisson' }).arrivals()];
    expect(byObject).toEqual(byName);
  });
});

describe('a count phase', () => {
  it('at rate 0, like one without a rate: every arrival at the phase start', () => {
    const curve = rateCurve({ kind: 'count', count: 3, rate: 0 });
    expect([curve.timeAt(0), curve.timeAt(1), curve.timeAt(2)]).toEqual([0, 0, 0]);
    expect(rateCurve({ kind: 'count', count: 3, rate: 4 }).timeAt(2)).toBe(500);
  });
});

describe('the count of a constant phase', () => {
  it('is rate × duration when the product comes out a hair above a whole number, short or long', () => {
    // 1.1 × 7,000,000 / 1000 is 7700.000000000001 and 1.1 × 3e10 / 1000 is 33000000.000000004 in floats.
    expect(arrivalSchedule([{ kind: 'constant', rate: 1.1, durationMs: 7_000_000 }]).total).toBe(7700);
    expect(arrivalSchedule([{ kind: 'constant', rate: 1.1, durationMs: 3e10 }]).total).toBe(33_000_000);
  });
});
