/**
 * mulberry32: a small, fast 32-bit PRNG, good enough for arrival jitter and reproducible per seed.
 * Returns uniform numbers in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An independent seed for sub-stream `stream` of `seed` (splitmix32 finalizer), so each phase has
 * its own sequence: editing one phase does not move the arrivals of the others.
 */
export function deriveSeed(seed: number, stream: number): number {
  let z = (Math.trunc(seed) + Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
