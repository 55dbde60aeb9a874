/**
 * How arrivals are placed in "operational time", where the expected number of arrivals so far is
 * the clock: a process yields ascending points on that axis, and a phase maps point p to the
 * elapsed time t where ∫rate = p. Uniform points 0, 1, 2… give evenly paced arrivals (the n-th at
 * ∫rate = n); unit-rate Poisson points give a (non-homogeneous) Poisson process by the
 * time-change theorem. One mechanism serves constant, ramp and count phases alike.
 */
export interface ArrivalProcess {
  readonly name: string;
  /** A fresh point sequence; `seed` makes random processes reproducible. */
  start(seed: number): PointSequence;
  /** Optional shortcut: the n-th point (0-based) without generating the ones before it. */
  pointAt?(n: number, seed: number): number;
  /** Optional shortcut: how many points lie below `limit`. */
  countBelow?(limit: number, seed: number): number;
}

export interface PointSequence {
  /** The next point: ascending, the first ≥ 0. */
  next(): number;
}
