import { gammaProcess } from './gamma-process.js';
import { mulberry32 } from './prng.js';

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

export const uniformProcess: ArrivalProcess = {
  name: 'uniform',
  start: () => {
    let n = 0;
    return { next: () => n++ };
  },
  pointAt: (n) => n,
  // Points 0, 1, … below the limit; the tolerance keeps 200/s × 5 s at 1000, not 1001 when the
  // product comes out as 1000.0000000001.
  countBelow: (limit) => Math.max(0, Math.ceil(limit - 1e-9 * Math.max(1, limit))),
};

export const poissonProcess: ArrivalProcess = {
  name: 'poisson',
  start: (seed) => {
    const random = mulberry32(seed);
    let point = 0;
    // Exponential gaps of mean 1; 1 - u avoids log(0).
    return { next: () => (point += -Math.log(1 - random())) };
  },
};

const registry = new Map<string, ArrivalProcess>([
  [uniformProcess.name, uniformProcess],
  [poissonProcess.name, poissonProcess],
  // Burstiness 1 under its name; a schedule given another burstiness builds its own (arrival-schedule.ts).
  ['gamma', gammaProcess(1)],
]);

/** Adds a process under its name (DESIGN rule 6); a name can be registered once. */
export function registerArrivalProcess(arrivals: ArrivalProcess): void {
  if (registry.has(arrivals.name))
    throw new Error(`arrival process "${arrivals.name}" is already registered`);
  registry.set(arrivals.name, arrivals);
}

export function arrivalProcess(name: string): ArrivalProcess {
  const found = registry.get(name);
  if (found === undefined)
    throw new Error(`unknown arrival process "${name}"; known: ${arrivalProcessNames().join(', ')}`);
  return found;
}

export function arrivalProcessNames(): string[] {
  return [...registry.keys()];
}
