import { describe, expect, it } from 'vitest';
import {
  arrivalProcess,
  arrivalProcessNames,
  arrivalSchedule,
  registerArrivalProcess,
  type ArrivalProcess,
} from '../../src/schedule/index.js';
import { ARRIVAL_PROCESS_NAMES } from '../../src/scenario/index.js';

describe('arrival process registry', () => {
  it('knows every process a scenario file may name', () => {
    expect(arrivalProcessNames()).toEqual(expect.arrayContaining([...ARRIVAL_PROCESS_NAMES]));
    for (const name of ARRIVAL_PROCESS_NAMES) expect(arrivalProcess(name).name).toBe(name);
  });

  it('refuses unknown names and a second registration of a name', () => {
    expect(() => arrivalProcess('bursty')).toThrow(
      'unknown arrival process "bursty"; known: uniform, poisson',
    );
    expect(() => registerArrivalProcess({ name: 'uniform', start: () => ({ next: () => 0 }) })).toThrow(
      'already registered',
    );
  });

  it('runs a registered process by name, without the optional shortcuts', () => {
    // Pairs of arrivals: points 0, 0, 2, 2, 4, 4, …
    const pairs: ArrivalProcess = {
      name: 'pairs-for-test',
      start: () => {
        let n = 0;
        return { next: () => 2 * Math.floor(n++ / 2) };
      },
    };
    registerArrivalProcess(pairs);
    const s = arrivalSchedule([{ kind: 'constant', rate: 10, durationMs: 1000 }], {
      process: 'pairs-for-test',
    });
    expect([...s].map((a) => a.atMs)).toEqual([0, 0, 200, 200, 400, 400, 600, 600, 800, 800]);
    expect(s.pace(0, 5).waitMs).toBe(400);
    expect(s.pace(0, 2).waitMs).toBe(200);
  });
});
