import { describe, expect, it } from 'vitest';
import { standardNormal } from '../../src/core/seeded-random.js';
import { gammaProcess } from '../../src/schedule/gamma-process.js';
import { mulberry32 } from '../../src/schedule/prng.js';

/*
 * The gamma gaps are drawn exactly as Marsaglia and Tsang (2000) lay their method out, from the
 * seed's own stream: a seed's schedule must stay the same from one version to the next, and the
 * method's rejection steps are what make the gaps gamma-distributed rather than nearly so. The
 * reference below is the paper's algorithm written out on its own, and counts how often each of
 * its branches is taken, so the comparison is known to cover every one of them.
 */
interface Branches {
  negativeV: number;
  squeeze: number;
  logAccept: number;
  reject: number;
}

function referenceDraw(a: number, random: () => number, seen: Branches): number {
  // Step 1: d = a − 1/3, c = 1/√(9d).
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    // Step 2: a normal x with v = (1 + cx)³ > 0, drawn again while 1 + cx ≤ 0.
    const x = standardNormal(random);
    const root = 1 + c * x;
    if (root <= 0) {
      seen.negativeV++;
      continue;
    }
    const v = root * root * root;
    const u = 1 - random();
    // Step 3: the squeeze, u < 1 − 0.0331 x⁴, accepts without a logarithm.
    if (u < 1 - 0.0331 * x ** 4) {
      seen.squeeze++;
      return d * v;
    }
    // Step 4: the exact test, ln u < x²/2 + d(1 − v + ln v).
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
      seen.logAccept++;
      return d * v;
    }
    seen.reject++;
  }
}

/** The reference's points for a burstiness b ≠ 1: gaps of Gamma(b) / b; below 1, boosted by U^(1/b). */
function referencePoints(b: number, seed: number, n: number, seen: Branches): number[] {
  const random = mulberry32(seed);
  const points: number[] = [];
  let point = 0;
  for (let i = 0; i < n; i++) {
    const g = b < 1 ? referenceDraw(b + 1, random, seen) * (1 - random()) ** (1 / b) : referenceDraw(b, random, seen);
    point += g / b;
    points.push(point);
  }
  return points;
}

function processPoints(b: number, seed: number, n: number): number[] {
  const seq = gammaProcess(b).start(seed);
  return Array.from({ length: n }, () => seq.next());
}

describe('gamma gaps follow Marsaglia and Tsang step by step', () => {
  it.each([
    [0.25, 7],
    [0.6, 3],
    [2, 11],
    [4, 5],
  ])('burstiness %s, seed %s: the same points as the method written out', (b, seed) => {
    const seen: Branches = { negativeV: 0, squeeze: 0, logAccept: 0, reject: 0 };
    const expected = referencePoints(b, seed, 20_000, seen);
    expect(processPoints(b, seed, 20_000)).toEqual(expected);
    // Every step but the rare 1 + cx ≤ 0 is taken within 20,000 draws at any of these shapes.
    expect(seen.squeeze).toBeGreaterThan(0);
    expect(seen.logAccept).toBeGreaterThan(0);
    expect(seen.reject).toBeGreaterThan(0);
  });

  it('redraws the normal when 1 + cx ≤ 0, which a small burstiness meets (c is largest there)', () => {
    // Burstiness 0.05: the boosted shape is 1.05, d ≈ 0.717, c ≈ 0.394, so x < −2.54 (p ≈ 0.006).
    const seen: Branches = { negativeV: 0, squeeze: 0, logAccept: 0, reject: 0 };
    const expected = referencePoints(0.05, 1, 5_000, seen);
    expect(seen.negativeV).toBeGreaterThan(0);
    expect(processPoints(0.05, 1, 5_000)).toEqual(expected);
  });

  it('boosts only a shape below 1: above it the gaps are the plain method, no extra uniform drawn', () => {
    // With the boost, shape 2 would draw Gamma(3) · U^(1/2): the same law, another sequence.
    const seen: Branches = { negativeV: 0, squeeze: 0, logAccept: 0, reject: 0 };
    const random = mulberry32(4);
    const plain = referenceDraw(2, random, seen) / 2;
    expect(processPoints(2, 4, 1)).toEqual([plain]);
  });
});
