/**
 * A small seeded generator (mulberry32), shared by the emulator (profiles and the server-errors
 * fault draw from it, so a run with the same seed and the same requests fails the same jobs) and by
 * compare's bootstrap (its own subclass).
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    return standardNormal(() => this.next());
  }
}

/**
 * One standard normal number from two uniform draws in [0, 1) (Box and Muller): the one sampler
 * of the emulator's profiles, the scenario's length distributions and the gamma arrivals, so a
 * seed draws the same way everywhere. 1 − u keeps the logarithm finite.
 */
export function standardNormal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
