import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  fitDuration,
  loadScenario,
  parseScenario,
  scaleRates,
  totalDurationMs,
} from '../../src/scenario/index.js';
import { arrivalSchedule, type PhaseShape } from '../../src/schedule/index.js';

describe('scenario phases drive schedules directly', () => {
  it.each(readdirSync('scenarios').filter((f) => f.endsWith('.yaml')))(
    '%s builds a schedule',
    async (file) => {
      const s = await loadScenario(`scenarios/${file}`);
      // Structural compatibility: the scenario's Phase is a PhaseShape, no mapping needed.
      const phases: readonly PhaseShape[] = s.phases;
      const schedule = arrivalSchedule(phases, { process: s.arrivals.process, seed: s.arrivals.seed });
      expect(schedule.durationMs).toBeCloseTo(totalDurationMs(s.phases), 6);
      expect(schedule.total).toBe([...schedule].length);
    },
  );

  const s = parseScenario(
    'name: t\nphases:\n  - { duration: 5s, rate: 200 }\n  - { duration: 10s, ramp: { from: 0, to: 100 } }\n  - { count: 50, rate: 10 }\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
    't.yaml',
  );

  it('a constant 200/s phase for 5 s is 1000 arrivals', () => {
    expect(arrivalSchedule(s.phases.slice(0, 1)).total).toBe(1000);
  });

  it.each<[string, number, number, number]>([
    ['as written', 20_000, 1000 + 500 + 50, 1],
    ['--duration 2s', 2000, 100 + 50 + 50, 0.1],
    ['--duration 40s', 40_000, 2000 + 1000 + 50, 2],
  ])('fitDuration %s: length %d ms, %d arrivals', (_name, total, count, factor) => {
    const fitted = factor === 1 ? s : fitDuration(s, total);
    const schedule = arrivalSchedule(fitted.phases);
    expect(schedule.durationMs).toBeCloseTo(total, 6);
    expect(schedule.total).toBe(count);
  });

  it.each<[number, number]>([
    [0.1, 100 + 50 + 5],
    [1, 1550],
    [3, 3000 + 1500 + 150],
  ])('scaleRates %d: %d arrivals in the same time', (factor, count) => {
    const schedule = arrivalSchedule(scaleRates(s, factor).phases);
    expect(schedule.durationMs).toBeCloseTo(20_000, 6);
    expect(schedule.total).toBe(count);
  });
});
