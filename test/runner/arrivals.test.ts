import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunOptions } from '../../src/runner/run-options.js';
import { arrivalSchedule } from '../../src/schedule/index.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { manualTarget, quietLoop, type ManualTarget } from '../helpers/manual-target.js';
import { arrivalsOf, dropped, exchanges, inlineScenario, runCollecting, type Collected } from './helpers.js';

/*
 * Issue 4, "Shown by tests": the open model issues the arrivals its schedule says, on time; what
 * cannot start is dropped and recorded, never delayed; shards together are the unsharded run.
 * The runs and the emulator share a manual clock (issue 46): "on time" is exact, on any machine;
 * how late a real loop sends under load is the benchmarks' to measure (bench/).
 */

let m: ManualTarget;
beforeEach(async () => {
  m = await manualTarget({ workersMin: 4, workersMax: 20, requestsPerWorker: 100 });
});
afterEach(async () => {
  await m.emulator.close();
});

/** A run on the shared clock (several side by side share it too, as shards on one machine would). */
const run = (scenario: Scenario, extra: Partial<RunOptions> = {}): Promise<Collected> =>
  runCollecting(scenario, m.target, { ...extra, clock: m.clock, generatorProbe: quietLoop });

describe('open-model arrivals', () => {
  it('a constant 200/s phase for 5 s issues 1000 ± 1% arrivals, each sent near its intended start', async () => {
    const scenario = inlineScenario(`
name: constant-200
phases:
  - { duration: 5s, rate: 200 }
flows:
  - name: health
    steps:
      - health: {}
`);
    const { records, outcome } = await m.driver.run(run(scenario));
    const started = arrivalsOf(records);
    const total = started.length + dropped(records).length;
    expect(total).toBeGreaterThanOrEqual(990);
    expect(total).toBeLessThanOrEqual(1010);
    expect(outcome.counters.arrivals).toBe(total);
    // Every intended start lies in the phase, and they are the schedule's: 5 ms apart.
    const intended = started.map((r) => r.intendedAt).sort((a, b) => a - b);
    expect(intended[0]).toBeGreaterThanOrEqual(0);
    expect(intended[intended.length - 1]).toBeLessThan(5000);
    for (let i = 1; i < intended.length; i++)
      expect((intended[i] ?? 0) - (intended[i - 1] ?? 0)).toBeCloseTo(5, 6);
    // Sent on time: each send at its intended start, never before it.
    const late = started.map((r) => r.sentAt - r.intendedAt).sort((a, b) => a - b);
    expect(late[0]).toBeGreaterThanOrEqual(0);
    expect(late.at(-1)).toBeLessThan(1);
    expect(started.every((r) => r.status === 200)).toBe(true);
  });

  it('arrivals beyond maxInFlight are dropped records, and the ones that start are never delayed', async () => {
    const scenario = inlineScenario(`
name: drops
target: { maxInFlight: 5 }
phases:
  - { duration: 1s, rate: 100 }
flows:
  - name: slow
    steps:
      - run: { input: { sleep_ms: 400 } }
      - poll: { until: final, interval: 100ms, timeout: 10s }
`);
    const { records, outcome } = await m.driver.run(run(scenario));
    const started = arrivalsOf(records);
    const drops = dropped(records);
    // The schedule has exactly 100 arrivals; each is either started or dropped.
    expect(started.length + drops.length).toBe(100);
    expect(outcome.counters.dropped).toBe(drops.length);
    expect(drops.length).toBeGreaterThan(50);
    expect(started.length).toBeGreaterThanOrEqual(5);
    // Together they are the schedule, instant for instant: nothing moved to a later slot.
    const planned = [...arrivalSchedule(scenario.phases)].map((a) => a.atMs);
    const seen = [...started.map((r) => r.intendedAt), ...drops.map((d) => d.intendedAt)].sort(
      (a, b) => a - b,
    );
    expect(seen).toEqual(planned);
    // A started arrival left when it was due, not when a slot freed up.
    for (const r of started) expect(r.sentAt - r.intendedAt).toBeLessThan(1);
    // Never more than maxInFlight iterations at once: count overlaps of [first send, last end].
    const spans = new Map<string, [number, number]>();
    for (const r of exchanges(records)) {
      if (r.jobId === undefined) continue;
      const s = spans.get(r.jobId);
      spans.set(r.jobId, s ? [Math.min(s[0], r.sentAt), Math.max(s[1], r.endAt)] : [r.sentAt, r.endAt]);
    }
    const edges = [...spans.values()]
      .flatMap(
        ([a, b]) =>
          [
            [a, 1],
            [b, -1],
          ] as const,
      )
      .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d));
    expect(most).toBeLessThanOrEqual(5);
  });

  it('shards 1/2 and 2/2 together issue exactly the arrivals of one unsharded run', async () => {
    const scenario = inlineScenario(`
name: sharded
arrivals: { process: poisson, seed: 7 }
phases:
  - { duration: 1s, ramp: { from: 20, to: 80 } }
  - { duration: 1s, rate: 60 }
  - { count: 15, rate: 30 }
flows:
  - name: a
    weight: 2
    steps:
      - health: {}
  - name: b
    steps:
      - health: {}
`);
    const intendedOf = async (shard?: { index: number; count: number }): Promise<number[]> => {
      const { records } = await run(scenario, shard ? { shard } : {});
      expect(dropped(records)).toEqual([]);
      const first = arrivalsOf(records);
      if (shard)
        expect(first.every((r) => r.shard === `${String(shard.index)}/${String(shard.count)}`)).toBe(true);
      return first.map((r) => r.intendedAt);
    };
    // The shards run side by side, as they would on two machines.
    const [whole, one, two] = await m.driver.run(
      Promise.all([intendedOf(), intendedOf({ index: 1, count: 2 }), intendedOf({ index: 2, count: 2 })]),
    );
    const sort = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
    expect(whole.length).toBeGreaterThan(100);
    expect(one.length + two.length).toBe(whole.length);
    // Intended times come from the schedule, not from timers: they are equal exactly.
    expect(sort([...one, ...two])).toEqual(sort(whole));
    expect(Math.abs(one.length - two.length)).toBeLessThanOrEqual(1);
  });
});
