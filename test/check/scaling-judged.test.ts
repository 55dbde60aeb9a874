import { describe, expect, it } from 'vitest';
import type { ScalingExpectation } from '../../src/core/scaling-expectation.js';
import { ex, job } from './records.js';
import { health, queued, scalingOutcome as check, started } from './scaling-outcome.js';

/*
 * The scaling rules on saved /health reads (issue 39: the live scaling proofs are not in the
 * mutation run): what each rule judges, each bound on its edge, and why a rule judged nothing. The
 * default tolerances: 1 s of grace on scale-up, 5 s past idleTimeout on scale-down.
 */

const ALL: ScalingExpectation = {
  workersMin: 1,
  workersMax: 10,
  idleTimeoutMs: 2000,
  scaleUpWithinMs: 5000,
  source: 'scenario',
};

const NO_INITIALIZING =
  '/health does not report workers.initializing, so a worker starting cannot be told from one that was already on its way';
const NO_LOW_QUEUE = 'no /health read saw a queue of only lowPriority jobs of ours';
const NO_QUIET = 'no /health read saw the endpoint with nothing queued or running';

describe('why a scaling rule judged nothing', () => {
  it('names the setting missing and where it would have come from', () => {
    const reads = [health(1000), health(2000)];
    expect(check(reads, { source: 'scenario' }).notes).toEqual({
      'scaling.above-max':
        "workersMax is not known: the scenario's scaling: block does not give it (state it under scaling:)",
      'scaling.low-priority':
        "workersMin is not known: the scenario's scaling: block does not give it (state it under scaling:)",
      'scaling.stuck':
        "workersMax is not known: the scenario's scaling: block does not give it (state it under scaling:)",
      'scaling.no-scale-down':
        "workersMin is not known: the scenario's scaling: block does not give it (state it under scaling:)",
    });
    const emulator = check(reads, { workersMin: 0, workersMax: 10, source: 'emulator' });
    expect(emulator.notes).toEqual({
      'scaling.low-priority': NO_LOW_QUEUE,
      'scaling.stuck':
        "scaleUpWithin is not known: the embedded emulator's settings does not give it (state it under scaling:)",
      'scaling.no-scale-down':
        "idleTimeout is not known: the embedded emulator's settings does not give it (state it under scaling:)",
    });
    expect(emulator.judged).toEqual({ 'scaling.above-max': 2 });
    const bounds = check(reads, { idleTimeoutMs: 2000, scaleUpWithinMs: 5000, source: 'scenario' });
    expect(bounds.notes['scaling.stuck']).toMatch(/^workersMax is not known/);
    expect(bounds.notes['scaling.no-scale-down']).toMatch(/^workersMin is not known/);
    expect(bounds.judged).toEqual({});
  });

  it('judges the queue rules only on an endpoint whose queue is ours alone', () => {
    const reads = [queued('l', 0, true), health(1000, { inQueue: 1 }), health(3000, { idle: 2, inQueue: 1 })];
    expect(check(reads, ALL).found).toEqual({ 'scaling.low-priority': 1 });
    const shard = check(reads, ALL, { shard: '1/2' });
    expect(shard.found).toEqual({});
    const part =
      'a shard sees only its own jobs, not what the other shards queued (judge the merged records)';
    expect(shard.notes).toEqual({
      'scaling.low-priority': part,
      'scaling.stuck': part,
      'scaling.no-scale-down': NO_QUIET,
    });
    const shared = check(reads, ALL, { ownsEndpoint: false });
    expect(shared.found).toEqual({});
    const why = "the endpoint may be shared (no --exclusive-endpoint): other clients' jobs may be queued";
    expect(shared.notes).toEqual({
      'scaling.low-priority': why,
      'scaling.stuck': why,
      'scaling.no-scale-down': NO_QUIET,
    });
    const exclusive = check(reads, ALL, { ownsEndpoint: false, exclusiveEndpoint: true });
    expect(exclusive.found).toEqual({ 'scaling.low-priority': 1 });
    expect(exclusive.notes).toEqual({ 'scaling.no-scale-down': NO_QUIET });
  });

  it('without a /health read to go by: every rule says why', () => {
    const missing = check(
      [ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }), ex('health', 100, 404)],
      ALL,
    );
    const gone = 'the target does not serve /health';
    expect(missing.notes).toEqual({
      'scaling.low-priority': gone,
      'scaling.above-max': gone,
      'scaling.stuck': gone,
      'scaling.no-scale-down': gone,
    });
    const bare = check([ex('health', 100, 200, { status: 'ok' })], ALL);
    const none = 'no /health answer carried worker and queue counts';
    expect(bare.notes).toEqual({
      'scaling.low-priority': none,
      'scaling.above-max': none,
      'scaling.stuck': none,
      'scaling.no-scale-down': none,
    });
    expect(bare.judged).toEqual({});
  });

  it('without workers.initializing in any read, the queue rules are not judged', () => {
    const reads = [
      health(1000, { init: undefined, inQueue: 3 }),
      health(9000, { init: undefined, inQueue: 3 }),
    ];
    const out = check(reads, ALL);
    expect(out.notes).toEqual({
      'scaling.low-priority': NO_INITIALIZING,
      'scaling.stuck': NO_INITIALIZING,
      'scaling.no-scale-down': NO_QUIET,
    });
    expect(out.judged).toEqual({ 'scaling.above-max': 2 });
  });
});

describe('scaling.low-priority: workers rose while the queue held only lowPriority jobs of ours', () => {
  const low = queued('l', 0, true);

  it('judges each pair of reads apart in time, and is kept when the workers stayed', () => {
    const rose = check(
      [low, health(1000, { idle: 1, inQueue: 1 }), health(3000, { idle: 2, inQueue: 1 })],
      ALL,
    );
    expect(rose.found).toEqual({ 'scaling.low-priority': 1 });
    expect(rose.judged['scaling.low-priority']).toBe(1);
    expect(rose.notes['scaling.low-priority']).toBeUndefined();
    expect(rose.messages['scaling.low-priority']).toBe(
      '/health counted 2 workers (2 idle, 0 running, 0 initializing), 1 jobs in queue, up from 1 workers (workersMin 1) at the read before, while every job in the queue was lowPriority',
    );
    const kept = check(
      [low, health(1000, { idle: 1, inQueue: 1 }), health(3000, { idle: 1, inQueue: 1 })],
      ALL,
    );
    expect(kept.found).toEqual({});
    expect(kept.judged['scaling.low-priority']).toBe(1);
    expect(kept.notes['scaling.low-priority']).toBeUndefined();
  });

  it('counts workers up to workersMin as there before', () => {
    const min2 = { ...ALL, workersMin: 2 };
    const reads = [low, health(1000, { inQueue: 1 }), health(3000, { idle: 2, inQueue: 1 })];
    expect(check(reads, min2).found).toEqual({});
    expect(check(reads, min2).judged['scaling.low-priority']).toBe(1);
  });

  it('skips reads that overlap: the second was sent before the first was answered', () => {
    const touching = [
      low,
      health(1000, { idle: 1, inQueue: 1, took: 2000 }),
      health(3000, { idle: 2, inQueue: 1 }),
    ];
    const out = check(touching, ALL);
    expect(out.judged['scaling.low-priority']).toBeUndefined();
    expect(out.notes['scaling.low-priority']).toBe(NO_LOW_QUEUE);
  });

  it('skips a read with nothing queued, and one whose queue holds no lowPriority job of ours', () => {
    const empty = check([low, health(1000, { idle: 1 }), health(3000, { idle: 2 })], ALL);
    expect(empty.judged['scaling.low-priority']).toBeUndefined();
    expect(empty.notes['scaling.low-priority']).toBe(NO_LOW_QUEUE);
    const others = check([health(1000, { idle: 1, inQueue: 1 }), health(3000, { idle: 2, inQueue: 1 })], ALL);
    expect(others.found).toEqual({});
    expect(others.notes['scaling.low-priority']).toBe(NO_LOW_QUEUE);
  });

  it('a job that calls for workers, queued up to the grace before the first read, explains new workers', () => {
    const pair = [health(2000, { idle: 1, inQueue: 1 }), health(4000, { idle: 2, inQueue: 1 })];
    // The job left the queue when the answer showing it running ended (sent + 5 ms).
    const within = check([low, queued('n', 0), started('n', 995), ...pair], ALL);
    expect(within.found).toEqual({});
    expect(within.judged['scaling.low-priority']).toBeUndefined();
    const before = check([low, queued('n', 0), started('n', 994), ...pair], ALL);
    expect(before.found).toEqual({ 'scaling.low-priority': 1 });
  });

  it('is not judged on a pair where either read lacks workers.initializing', () => {
    for (const [a, b] of [
      [{ init: undefined }, {}],
      [{}, { init: undefined }],
    ]) {
      const out = check(
        [low, health(1000, { idle: 1, inQueue: 1, ...a }), health(3000, { idle: 2, inQueue: 1, ...b })],
        ALL,
      );
      expect(out.found).toEqual({});
      expect(out.judged['scaling.low-priority']).toBeUndefined();
      expect(out.notes['scaling.low-priority']).toBe(NO_INITIALIZING);
    }
  });
});

describe('scaling.stuck: queued work beyond the workers idle or starting, below workersMax', () => {
  // Bound: scaleUpWithin 5 s + 1 s of grace, from the end of the first read that saw it waiting.
  const waiting = (at: number) => health(at, { inQueue: 2 });

  it('waits the bound exactly, from the first read that saw the work waiting', () => {
    const edge = check([waiting(1000), waiting(7005)], ALL);
    expect(edge.found).toEqual({});
    expect(edge.judged['scaling.stuck']).toBe(2);
    const past = check([waiting(1000), waiting(7006)], ALL);
    expect(past.found).toEqual({ 'scaling.stuck': 1 });
    expect(past.messages['scaling.stuck']).toBe(
      '/health counted 0 workers (0 idle, 0 running, 0 initializing), 2 jobs in queue: 2 queued jobs call for workers beyond those idle or starting, below workersMax 10, for 6.0 s (scale-up bound 5.0 s)',
    );
  });

  it('reports a stretch once, and starts anew after a read with nothing waiting', () => {
    const twice = [
      waiting(1000),
      waiting(7006),
      waiting(8000),
      health(9000),
      waiting(10_000),
      waiting(16_006),
    ];
    expect(check(twice, ALL).found).toEqual({ 'scaling.stuck': 2 });
    const broken = [waiting(1000), health(4000), waiting(5000), waiting(10_000)];
    expect(check(broken, ALL).found).toEqual({});
  });

  it('counts as waiting only what the workers idle or starting cannot take', () => {
    const held = (inQueue: number) => [1000, 9000].map((at) => health(at, { idle: 1, init: 1, inQueue }));
    expect(check(held(2), ALL).found).toEqual({});
    expect(check(held(3), ALL).found).toEqual({ 'scaling.stuck': 1 });
  });

  it('our lowPriority jobs in the queue call for no workers', () => {
    const lows = [queued('l1', 0, true), queued('l2', 0, true)];
    expect(check([...lows, waiting(1000), waiting(9000)], ALL).found).toEqual({});
    expect(check([queued('l1', 0, true), waiting(1000), waiting(9000)], ALL).found).toEqual({
      'scaling.stuck': 1,
    });
  });

  it('an endpoint at exactly workersMax cannot scale, so it is not stuck; one worker below is', () => {
    // workersMax is 10: busy workers and a queue only more workers could take, read twice past the bound.
    const busy = (running: number) =>
      [1000, 9000].map((at) => health(at, { running: running - 1, init: 1, inQueue: 5 }));
    expect(check(busy(10), ALL).found).toEqual({});
    expect(check(busy(10), ALL).judged['scaling.stuck']).toBe(2);
    expect(check(busy(9), ALL).found).toEqual({ 'scaling.stuck': 1 });
  });

  it('judges only the reads that report workers.initializing', () => {
    const out = check([waiting(1000), health(2000, { init: undefined, inQueue: 2 }), waiting(3000)], ALL);
    expect(out.judged['scaling.stuck']).toBe(2);
  });
});

describe('scaling.no-scale-down: workers above workersMin idle past idleTimeout', () => {
  // Bound: idleTimeout 2 s + 5 s of grace, from the end of the first quiet read above workersMin.
  const idle = (at: number, extra = {}) => health(at, { idle: 3, ...extra });

  it('waits the bound exactly, and judges every quiet read', () => {
    const edge = check([idle(1000), idle(8005)], ALL);
    expect(edge.found).toEqual({});
    expect(edge.judged['scaling.no-scale-down']).toBe(2);
    expect(edge.notes['scaling.no-scale-down']).toBeUndefined();
    const past = check([idle(1000), idle(8006)], ALL);
    expect(past.found).toEqual({ 'scaling.no-scale-down': 1 });
    expect(past.messages['scaling.no-scale-down']).toBe(
      '/health counted 3 workers (3 idle, 0 running, 0 initializing), 0 jobs in queue, nothing running, for 7.0 s: above workersMin 1 past idleTimeout 2.0 s',
    );
  });

  it('a read with something queued or starting is not quiet: not judged', () => {
    for (const extra of [{ inQueue: 1 }, { init: 1 }]) {
      const out = check([idle(1000, extra), idle(9000, extra)], ALL);
      expect(out.found).toEqual({});
      expect(out.judged['scaling.no-scale-down']).toBeUndefined();
      expect(out.notes['scaling.no-scale-down']).toBe(NO_QUIET);
    }
  });

  it('judges the reads in the order they were sent, not answered', () => {
    const slow = idle(10_000, { took: 30_000 });
    const out = check([idle(0), slow, idle(20_000)], ALL);
    expect(out.found).toEqual({ 'scaling.no-scale-down': 1 });
    expect(out.cited['scaling.no-scale-down']).toBe(slow.seq);
    expect(out.messages['scaling.no-scale-down']).toMatch(/for 10\.0 s:/);
  });
});

describe('scaling.above-max', () => {
  it('judges every read, on its edge', () => {
    const out = check([health(1000, { idle: 10 }), health(2000, { idle: 10, init: 1 })], ALL);
    expect(out.found).toEqual({ 'scaling.above-max': 1 });
    expect(out.judged['scaling.above-max']).toBe(2);
  });
});
