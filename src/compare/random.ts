import { SeededRandom as CoreRandom } from '../core/seeded-random.js';

/**
 * The shared seeded generator, so a comparison of the same two files always reports the same
 * intervals (golden files and CI reruns agree), with what the bootstrap draws besides.
 */
export class SeededRandom extends CoreRandom {
  private spare: number | undefined;

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Standard normal (Box–Muller, both values used). */
  override normal(): number {
    if (this.spare !== undefined) {
      const s = this.spare;
      this.spare = undefined;
      return s;
    }
    const u = Math.max(this.next(), Number.MIN_VALUE);
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }
}
