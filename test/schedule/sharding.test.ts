import { describe, expect, it } from 'vitest';
import {
  arrivalSchedule,
  parseShard,
  type Arrival,
  type PhaseShape,
  type ScheduleOptions,
} from '../../src/schedule/index.js';

const cases: [string, PhaseShape[], ScheduleOptions][] = [
  ['uniform constant', [{ kind: 'constant', rate: 200, durationMs: 5000 }], {}],
  ['uniform ramp', [{ kind: 'ramp', from: 10, to: 300, durationMs: 4000 }], {}],
  [
    'seeded Poisson stages',
    [
      { kind: 'ramp', from: 0, to: 100, durationMs: 3000 },
      { kind: 'vus', vus: 3, durationMs: 500 },
      { kind: 'count', count: 37, rate: 50 },
      { kind: 'constant', rate: 77, durationMs: 2000 },
    ],
    { process: 'poisson', seed: 1234 },
  ],
];

function sortByIndex(a: Arrival[]): Arrival[] {
  return [...a].sort((x, y) => x.index - y.index);
}

describe('shards', () => {
  describe.each(cases)('%s', (_name, phases, options) => {
    const whole = arrivalSchedule(phases, options);
    const all = [...whole];

    it.each([1, 2, 3, 4, 7])('%d shards together are exactly the unsharded arrivals', (n) => {
      const parts = Array.from({ length: n }, (_, i) => [...whole.shard(i + 1, n)]);
      expect(sortByIndex(parts.flat())).toEqual(all);
      parts.forEach((part, i) => {
        expect(part.every((a) => a.index % n === i)).toBe(true);
        // Each shard carries about 1/n of the arrivals (so 1/n of the rate).
        expect(Math.abs(part.length - all.length / n)).toBeLessThanOrEqual(1);
        expect(whole.shard(i + 1, n).total).toBe(part.length);
      });
    });

    it('a shard keeps the phase windows of the whole run', () => {
      expect(whole.shard(2, 3).windows).toEqual(whole.windows);
      expect(whole.shard(2, 3).durationMs).toBe(whole.durationMs);
    });

    it("a shard's pace walks its own arrivals", () => {
      const shard = whole.shard(2, 2);
      const mine = [...shard];
      mine.slice(0, 50).forEach((a, hit) => {
        expect(shard.arrival(hit)).toEqual(a);
        expect(shard.pace(a.atMs - 3, hit).waitMs).toBeCloseTo(3, 9);
      });
      expect(shard.pace(0, mine.length).done).toBe(true);
    });
  });

  it('shard 2/2 of 1000 arrivals starts with global index 1 at 5 ms', () => {
    const first = arrivalSchedule([{ kind: 'constant', rate: 200, durationMs: 5000 }])
      .shard(2, 2)
      .arrival(0);
    expect(first).toEqual({ index: 1, atMs: 5, phase: 0 });
  });

  it.each([
    [0, 2],
    [3, 2],
    [1, 0],
    [1.5, 2],
  ])('refuses shard %d/%d', (i, n) => {
    expect(() => arrivalSchedule([{ kind: 'count', count: 1 }]).shard(i, n)).toThrow(RangeError);
  });

  it('does not shard a shard', () => {
    expect(() =>
      arrivalSchedule([{ kind: 'count', count: 1 }])
        .shard(1, 2)
        .shard(1, 2),
    ).toThrow('already a shard');
  });

  it.each<[string, { index: number; count: number } | undefined]>([
    ['1/2', { index: 1, count: 2 }],
    [' 4/4 ', { index: 4, count: 4 }],
    ['0/2', undefined],
    ['3/2', undefined],
    ['1/0', undefined],
    ['a/b', undefined],
    ['1', undefined],
  ])('parseShard(%j)', (text, shard) => {
    expect(parseShard(text)).toEqual(shard);
  });
});
