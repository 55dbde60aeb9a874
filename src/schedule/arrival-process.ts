import { gammaProcess } from './gamma-process.js';
import type { ArrivalProcess } from './point-process.js';
import { mulberry32 } from './prng.js';

export type { ArrivalProcess, PointSequence } from './point-process.js';

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
