import { describe, expect, it } from 'vitest';
import { arrivalSchedule, deriveSeed, mulberry32, type PhaseShape } from '../../src/schedule/index.js';

function poissonTimes(phases: PhaseShape[], seed: number): number[] {
  return [...arrivalSchedule(phases, { process: 'poisson', seed }).arrivals()].map((a) => a.atMs);
}

const constant: PhaseShape[] = [{ kind: 'constant', rate: 200, durationMs: 5000 }];

describe('seeded Poisson arrivals', () => {
  it('are the same for the same seed and differ for another seed', () => {
    const a = poissonTimes(constant, 42);
    expect(poissonTimes(constant, 42)).toEqual(a);
    expect(poissonTimes(constant, 43)).not.toEqual(a);
  });

  it('count within statistical bounds of the expected 1000 for every seed, and average it', () => {
    // The count is Poisson(1000): standard deviation √1000 ≈ 31.6. Five deviations per seed; the
    // mean of 40 seeds within four deviations of the mean (√(1000/40) = 5).
    const counts = Array.from({ length: 40 }, (_, seed) => poissonTimes(constant, seed).length);
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(5 * Math.sqrt(1000));
    const mean = counts.reduce((s, c) => s + c, 0) / counts.length;
    expect(Math.abs(mean - 1000)).toBeLessThan(4 * 5);
    expect(new Set(counts).size).toBeGreaterThan(5);
  });

  it('have exponential gaps: mean 1/rate and coefficient of variation about 1', () => {
    const t = poissonTimes([{ kind: 'constant', rate: 100, durationMs: 100_000 }], 7);
    const gaps = t.slice(1).map((x, i) => x - (t[i] ?? 0));
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length);
    expect(mean).toBeGreaterThan(9.5);
    expect(mean).toBeLessThan(10.5);
    expect(sd / mean).toBeGreaterThan(0.95);
    expect(sd / mean).toBeLessThan(1.05);
  });

  it('follow a ramp: the count is near the integral, and most arrive where the rate is high', () => {
    const ramp: PhaseShape[] = [{ kind: 'ramp', from: 0, to: 400, durationMs: 10_000 }];
    const t = poissonTimes(ramp, 3);
    expect(Math.abs(t.length - 2000)).toBeLessThan(5 * Math.sqrt(2000));
    const late = t.filter((x) => x >= 5000).length;
    expect(late / t.length).toBeGreaterThan(0.7);
    expect(late / t.length).toBeLessThan(0.8);
  });

  it('deliver exactly the count of a count phase, ending where the next would have been', () => {
    const s = arrivalSchedule(
      [
        { kind: 'count', count: 300, rate: 100 },
        { kind: 'count', count: 2 },
      ],
      { process: 'poisson', seed: 5 },
    );
    const all = [...s];
    expect(all.filter((a) => a.phase === 0)).toHaveLength(300);
    const last = all.filter((a) => a.phase === 0).at(-1)?.atMs ?? 0;
    expect(s.windows[0]?.endMs).toBeGreaterThan(last);
    expect(all.filter((a) => a.phase === 1).map((a) => a.atMs)).toEqual([
      s.windows[0]?.endMs,
      s.windows[0]?.endMs,
    ]);
  });

  it('answer pace queries forwards and backwards consistently with iteration', () => {
    const s = arrivalSchedule(constant, { process: 'poisson', seed: 9 });
    const all = [...s];
    const at = (hit: number): number => s.pace(0, hit).waitMs;
    expect(at(10)).toBe(all[10]?.atMs);
    expect(at(500)).toBe(all[500]?.atMs);
    expect(at(3)).toBe(all[3]?.atMs);
    expect(s.pace(0, all.length)).toEqual({ waitMs: 0, done: true });
  });
});

describe('PRNG', () => {
  it('mulberry32 is deterministic and uniform-ish in [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01);
  });

  it('derives distinct seeds per phase', () => {
    const seeds = new Set(Array.from({ length: 1000 }, (_, i) => deriveSeed(42, i)));
    expect(seeds.size).toBe(1000);
    expect(deriveSeed(42, 0)).not.toBe(deriveSeed(43, 0));
  });
});
