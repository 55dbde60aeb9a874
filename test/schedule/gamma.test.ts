import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { parseScenario } from '../../src/scenario/index.js';
import { arrivalSchedule, type PhaseShape } from '../../src/schedule/index.js';
import { gammaProcess } from '../../src/schedule/gamma-process.js';

/*
 * Issue 48 item 5: gamma-distributed arrivals with a burstiness, as vLLM's `bench serve
 * --burstiness` makes them: the same mean rate, gaps whose coefficient of variation is
 * 1/√burstiness, and 1 the Poisson process.
 */
function gaps(burstiness: number | undefined, seed: number, rate = 100, durationMs = 200_000): number[] {
  const t = [
    ...arrivalSchedule([{ kind: 'constant', rate, durationMs }], {
      process: 'gamma',
      seed,
      ...(burstiness === undefined ? {} : { burstiness }),
    }).arrivals(),
  ].map((a) => a.atMs);
  return t.slice(1).map((x, i) => x - (t[i] ?? 0));
}

function meanAndCv(xs: readonly number[]): { mean: number; cv: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
  return { mean, cv: sd / mean };
}

describe('gamma arrivals', () => {
  it.each([0.25, 0.5, 2, 4])(
    'burstiness %s: mean gap 1/rate, coefficient of variation 1/√burstiness',
    (burstiness) => {
      // 20,000 gaps: the mean within 3 % (its standard error is cv/√n ≤ 1.4 %), the cv within 6 %.
      const { mean, cv } = meanAndCv(gaps(burstiness, 11));
      expect(mean).toBeGreaterThan(9.7);
      expect(mean).toBeLessThan(10.3);
      expect(cv / (1 / Math.sqrt(burstiness))).toBeGreaterThan(0.94);
      expect(cv / (1 / Math.sqrt(burstiness))).toBeLessThan(1.06);
    },
  );

  it('burstiness 1 (and none) is the Poisson process: the same arrivals for the same seed', () => {
    const poisson = [
      ...arrivalSchedule([{ kind: 'constant', rate: 50, durationMs: 10_000 }], { process: 'poisson', seed: 5 }).arrivals(),
    ].map((a) => a.atMs);
    for (const burstiness of [1, undefined]) {
      const gamma = [
        ...arrivalSchedule([{ kind: 'constant', rate: 50, durationMs: 10_000 }], {
          process: 'gamma',
          seed: 5,
          ...(burstiness === undefined ? {} : { burstiness }),
        }).arrivals(),
      ].map((a) => a.atMs);
      expect(gamma).toEqual(poisson);
    }
  });

  it('is reproducible per seed, and burstier below 1: more empty seconds and fuller ones', () => {
    expect(gaps(0.3, 2, 20, 30_000)).toEqual(gaps(0.3, 2, 20, 30_000));
    expect(gaps(0.3, 2, 20, 30_000)).not.toEqual(gaps(0.3, 3, 20, 30_000));
    const perSecond = (burstiness: number): number[] => {
      const counts = new Array<number>(300).fill(0);
      const phases: PhaseShape[] = [{ kind: 'constant', rate: 10, durationMs: 300_000 }];
      for (const a of arrivalSchedule(phases, { process: 'gamma', seed: 9, burstiness }).arrivals())
        counts[Math.floor(a.atMs / 1000)] = (counts[Math.floor(a.atMs / 1000)] ?? 0) + 1;
      return counts;
    };
    const bursty = perSecond(0.2);
    const regular = perSecond(5);
    const empty = (c: number[]): number => c.filter((n) => n === 0).length;
    // At 10 a second for 300 s: burstiness 5 leaves no second empty, 0.2 leaves 8 to 19 empty
    // (seeds 1 to 10; a Poisson process would leave 300 × e^-10 ≈ 0.01).
    expect(empty(regular)).toBe(0);
    expect(empty(bursty)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...bursty)).toBeGreaterThan(Math.max(...regular));
  });

  it('refuses a burstiness that is not a positive number', () => {
    for (const b of [0, -1, Number.NaN, Infinity]) expect(() => gammaProcess(b)).toThrow(/positive number/);
  });
});

describe('arrivals.burstiness in a scenario file', () => {
  const scenario = (arrivals: string): string =>
    `name: g\narrivals: ${arrivals}\nphases: [{ duration: 1s, rate: 5 }]\nflows:\n  - name: f\n    steps:\n      - health: {}\n`;

  it('is read with process: gamma', () => {
    expect(parseScenario(scenario('{ process: gamma, burstiness: 0.5, seed: 3 }'), 'g.yaml').arrivals).toEqual({
      process: 'gamma',
      seed: 3,
      burstiness: 0.5,
    });
  });

  it('is an error with another process, or when not positive, at its field', () => {
    const issues = (arrivals: string): string[] => {
      try {
        parseScenario(scenario(arrivals), 'g.yaml');
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`);
      }
      throw new Error('expected a ConfigError');
    };
    expect(issues('{ process: poisson, burstiness: 0.5 }')).toEqual([
      expect.stringMatching(/^g\.yaml:2:\d+ {2}arrivals\.burstiness: burstiness shapes the gamma process only/),
    ]);
    expect(issues('{ process: gamma, burstiness: 0 }')[0]).toMatch(/arrivals\.burstiness/);
  });
});
