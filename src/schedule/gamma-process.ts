import { standardNormal } from '../core/seeded-random.js';
import type { ArrivalProcess } from './point-process.js';
import { mulberry32 } from './prng.js';

/**
 * Gamma-distributed gaps with mean 1 in operational time: vLLM `bench serve`'s `--burstiness`.
 * The shape is the burstiness: 1 is a Poisson process (the same points as `poisson` for the same
 * seed), below 1 arrivals come in clumps with long quiet spells, above 1 they are more regular
 * than Poisson; the coefficient of variation of the gaps is 1/√burstiness. The rate is unchanged:
 * the scale is 1/burstiness.
 */
export function gammaProcess(burstiness: number): ArrivalProcess {
  if (!(burstiness > 0) || !Number.isFinite(burstiness))
    throw new RangeError(`burstiness must be a positive number, not ${String(burstiness)}`);
  return {
    name: 'gamma',
    start: (seed) => {
      const random = mulberry32(seed);
      let point = 0;
      if (burstiness === 1) return { next: () => (point += -Math.log(1 - random())) };
      const sample = gammaSampler(burstiness, random);
      return { next: () => (point += sample() / burstiness) };
    },
  };
}

/** Marsaglia and Tsang's method (2000) for shape ≥ 1; a shape below 1 is boosted by U^(1/shape). */
function gammaSampler(shape: number, random: () => number): () => number {
  const boosted = shape < 1;
  const d = (boosted ? shape + 1 : shape) - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  const normal = (): number => standardNormal(random);
  const draw = (): number => {
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - random();
      if (u < 1 - 0.0331 * x ** 4) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  };
  return boosted ? () => draw() * (1 - random()) ** (1 / shape) : draw;
}
