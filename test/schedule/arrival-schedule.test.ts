import { describe, expect, it } from 'vitest';
import { arrivalSchedule, rateCurve, type Arrival, type PhaseShape } from '../../src/schedule/index.js';

function times(phases: PhaseShape[]): number[] {
  return [...arrivalSchedule(phases).arrivals()].map((a) => a.atMs);
}

/** ∫rate from the phase start to t (ms), per second rates: the expected count by time t. */
function integral(phase: PhaseShape & { kind: 'ramp' }, t: number): number {
  const a = phase.from;
  const k = (phase.to - phase.from) / phase.durationMs;
  return (a * t + (k * t * t) / 2) / 1000;
}

describe('constant phases', () => {
  it.each<[number, number, number]>([
    [200, 5000, 1000],
    [50, 30_000, 1500],
    [0.5, 10_000, 5],
    [3, 1000, 3],
    [0, 10_000, 0],
    // 1/3 per second for 10 s: 3.33 expected, arrivals at 0, 3 s, 6 s, 9 s.
    [1 / 3, 10_000, 4],
  ])('%d/s for %d ms yields %d arrivals, evenly spaced from 0', (rate, durationMs, count) => {
    const t = times([{ kind: 'constant', rate, durationMs }]);
    expect(t).toHaveLength(count);
    t.forEach((at, n) => {
      expect(at).toBeCloseTo((n * 1000) / rate, 6);
    });
    expect(t.every((at) => at < durationMs)).toBe(true);
  });
});

describe('ramp phases', () => {
  it.each<[number, number, number, number]>([
    [0, 100, 10_000, 500],
    [50, 200, 60_000, 7500],
    [100, 0, 10_000, 500],
    [10, 10, 5000, 50],
    [1, 2, 1000, 2],
    [0, 1, 3000, 2],
  ])(
    '%d → %d/s over %d ms yields %d arrivals (the integral), the n-th where ∫rate = n',
    (from, to, durationMs, count) => {
      const phase = { kind: 'ramp' as const, from, to, durationMs };
      const t = times([phase]);
      expect(t).toHaveLength(count);
      expect(Math.ceil(integral(phase, durationMs) - 1e-9)).toBe(count);
      t.forEach((at, n) => {
        expect(integral(phase, at)).toBeCloseTo(n, 6);
      });
      expect(t.every((at, i) => at < durationMs && (i === 0 || at > (t[i - 1] ?? 0)))).toBe(true);
    },
  );

  it('a ramp up packs arrivals towards the end, a ramp down towards the start', () => {
    const up = times([{ kind: 'ramp', from: 0, to: 100, durationMs: 10_000 }]);
    const down = times([{ kind: 'ramp', from: 100, to: 0, durationMs: 10_000 }]);
    // Λ(5 s) is 125 and 375: the arrival numbered exactly that lands on 5 s, within rounding.
    expect(up.filter((t) => t < 4999.999)).toHaveLength(125);
    expect(down.filter((t) => t < 4999.999)).toHaveLength(375);
    expect(down[375]).toBeCloseTo(5000, 6);
  });

  it('inverts its own integral', () => {
    const curve = rateCurve({ kind: 'ramp', from: 20, to: 80, durationMs: 4000 });
    expect(curve.expected).toBe(200);
    expect(curve.timeAt(0)).toBe(0);
    expect(curve.timeAt(200)).toBeCloseTo(4000, 6);
  });
});

describe('count phases', () => {
  it.each<[string, PhaseShape, number[]]>([
    ['at a rate', { kind: 'count', count: 5, rate: 20 }, [0, 50, 100, 150, 200]],
    ['all at once without a rate', { kind: 'count', count: 4 }, [0, 0, 0, 0]],
    ['a single arrival', { kind: 'count', count: 1, rate: 1 }, [0]],
  ])('%s', (_name, phase, expected) => {
    expect(times([phase])).toEqual(expected);
  });

  it('last as long as count / rate, or no time at all', () => {
    expect(arrivalSchedule([{ kind: 'count', count: 100, rate: 20 }]).durationMs).toBe(5000);
    expect(arrivalSchedule([{ kind: 'count', count: 100 }]).durationMs).toBe(0);
  });
});

describe('stages', () => {
  const phases: PhaseShape[] = [
    { kind: 'constant', rate: 10, durationMs: 1000 },
    { kind: 'vus', vus: 5, durationMs: 2000 },
    { kind: 'count', count: 5, rate: 5 },
    { kind: 'count', count: 2 },
    { kind: 'ramp', from: 0, to: 20, durationMs: 1000 },
  ];
  const schedule = arrivalSchedule(phases);

  it('places each phase where the previous one ended', () => {
    expect(schedule.windows.map((w) => [w.kind, w.startMs, w.endMs, w.firstIndex, w.count])).toEqual([
      ['constant', 0, 1000, 0, 10],
      ['vus', 1000, 3000, 10, 0],
      ['count', 3000, 4000, 10, 5],
      ['count', 4000, 4000, 15, 2],
      ['ramp', 4000, 5000, 17, 10],
    ]);
    expect(schedule.durationMs).toBe(5000);
    expect(schedule.total).toBe(27);
  });

  it('yields arrivals in time order with contiguous indexes and their phase', () => {
    const all: Arrival[] = [...schedule];
    expect(all.map((a) => a.index)).toEqual(Array.from({ length: 27 }, (_, i) => i));
    expect(all.every((a, i) => i === 0 || a.atMs >= (all[i - 1]?.atMs ?? 0))).toBe(true);
    expect(all.slice(9, 12).map((a) => [a.phase, a.atMs])).toEqual([
      [0, 900],
      [2, 3000],
      [2, 3200],
    ]);
    expect(all.filter((a) => a.phase === 3).map((a) => a.atMs)).toEqual([4000, 4000]);
    // No arrival falls in the closed-model window.
    expect(all.some((a) => a.atMs >= 1000 && a.atMs < 3000)).toBe(false);
  });

  it('gives the same arrival by index as by iteration', () => {
    const all = [...schedule];
    all.forEach((a, hit) => {
      expect(schedule.arrival(hit)).toEqual(a);
    });
    expect(schedule.arrival(27)).toBeUndefined();
    expect(schedule.arrival(-1)).toBeUndefined();
  });
});

describe('pace (vegeta-style)', () => {
  const schedule = arrivalSchedule([{ kind: 'constant', rate: 10, durationMs: 1000 }]);
  it.each<[number, number, number, boolean]>([
    [0, 0, 0, false],
    [0, 1, 100, false],
    [30, 1, 70, false],
    [100, 1, 0, false],
    // Behind schedule: the next arrival is due at once, never skipped or delayed further.
    [450, 2, 0, false],
    [900, 9, 0, false],
    [800, 9, 100, false],
    [950, 10, 0, true],
    [5000, 11, 0, true],
  ])('at %d ms after %d hits: wait %d ms (done %s)', (elapsed, hits, waitMs, done) => {
    expect(schedule.pace(elapsed, hits)).toEqual({ waitMs, done });
  });
});
