import { describe, expect, it } from 'vitest';
import type { CompareRun } from '../../src/compare/compare-data.js';
import {
  RATE_TOLERANCE,
  assertComparable,
  describeRun,
  differences,
} from '../../src/compare/comparability.js';
import { ConfigError } from '../../src/core/config-error.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * Two runs are compared only when they are the same experiment: the same scenario, the same kind of
 * target, and offered rates within RATE_TOLERANCE or within Poisson noise of each other.
 */
const BASE = fixture(BASELINE_FILE);

function run(over: Partial<CompareRun> = {}): CompareRun {
  return {
    source: 'a',
    id: 'run-a',
    scenario: 'steady',
    target: 'http://x',
    targetKind: 'url',
    start: '2026-01-01T00:00:00.000Z',
    durationMs: 10_000,
    offered: 1000,
    offeredRate: 100,
    shards: [],
    ...over,
  };
}

/** The baseline fixture with these operations' request counts, these dropped arrivals, this length. */
function withLoad(requests: Record<string, number>, dropped: number, durationMs: number): Summary {
  const s = structuredClone(BASE);
  const template = Object.values(s.operations)[0];
  if (!template) throw new Error('the fixture has operations');
  s.operations = Object.fromEntries(Object.entries(requests).map(([op, n]) => [op, { ...template, requests: n }]));
  s.dropped = { ...s.dropped, total: dropped };
  s.run = { ...s.run, durationMs };
  return s;
}

describe('describeRun: what is offered', () => {
  it('counts submissions (run and runsync) and dropped arrivals, per second of the run', () => {
    const r = describeRun(withLoad({ run: 30, runsync: 10, status: 500 }, 4, 4000), 'folder');
    expect(r).toMatchObject({ source: 'folder', offered: 44, offeredRate: 11, durationMs: 4000 });
    expect(describeRun(withLoad({ run: 30, status: 500 }, 0, 4000), 'f').offered).toBe(30);
    expect(describeRun(withLoad({ runsync: 7, status: 500 }, 0, 4000), 'f').offered).toBe(7);
    // Only dropped arrivals: they were offered too.
    expect(describeRun(withLoad({ status: 500 }, 3, 4000), 'f').offered).toBe(3);
  });

  it('counts every request when the run submits no jobs, and a rate of 0 for a run of no length', () => {
    expect(describeRun(withLoad({ status: 500, health: 20 }, 0, 4000), 'f')).toMatchObject({
      offered: 520,
      offeredRate: 130,
    });
    expect(describeRun(withLoad({ status: 5 }, 0, 0), 'f').offeredRate).toBe(0);
  });

  it('names the kind of target from whether the run owned its endpoint', () => {
    const s = structuredClone(BASE);
    s.run = { ...s.run, ownsEndpoint: true };
    expect(describeRun(s, 'f').targetKind).toBe('emulator');
    s.run = { ...s.run, ownsEndpoint: false };
    expect(describeRun(s, 'f').targetKind).toBe('url');
    expect(describeRun(s, 'f')).toMatchObject({ id: s.run.id, scenario: s.run.scenario, shards: s.run.shards });
  });
});

describe('differences: when two runs are not the same experiment', () => {
  it('the same experiment has none', () => {
    expect(differences(run(), run())).toEqual([]);
  });

  it('different scenarios and kinds of target are named, each', () => {
    expect(differences(run(), run({ scenario: 'other' }))).toEqual([
      'different scenarios: the baseline ran "steady", the current run "other"',
    ]);
    expect(differences(run({ targetKind: 'emulator' }), run())).toEqual([
      'different kinds of target: the baseline ran against the embedded emulator, the current run against a URL',
    ]);
    expect(differences(run(), run({ targetKind: 'emulator' }))).toEqual([
      'different kinds of target: the baseline ran against a URL, the current run against the embedded emulator',
    ]);
  });

  it('offered rates more than 10 % apart and beyond noise differ; at 10 % or within noise they do not', () => {
    expect(RATE_TOLERANCE).toBe(0.1);
    // 100/s against 89/s, 1000 against 890 offered: 11 % apart, but 110 is under 3·√1890 ≈ 130: noise.
    expect(differences(run(), run({ offeredRate: 89, offered: 890 }))).toEqual([]);
    // 10 000 against 8 900: 11 % apart and far beyond noise.
    const far = differences(run({ offered: 10_000 }), run({ offeredRate: 89, offered: 8900 }));
    expect(far).toEqual([
      'different offered rates: 100.0/s in the baseline, 89.0/s now (more than 10% apart); a change of load is not a regression',
    ]);
    // The other way round, the same.
    expect(differences(run({ offeredRate: 89, offered: 8900 }), run({ offered: 10_000 }))).toHaveLength(1);
    // Exactly 10 % apart is within the tolerance, however far beyond noise.
    expect(differences(run({ offered: 10_000 }), run({ offeredRate: 90, offered: 9000 }))).toEqual([]);
    // Beyond noise by the counts, but the rates are the same (a longer run).
    expect(differences(run({ offered: 10_000 }), run({ offered: 20_000 }))).toEqual([]);
  });

  it('the count test is strict: a difference of exactly 3 standard deviations is noise', () => {
    // |1050 − 950| = 100; 3·√(2000) ≈ 134 > 100: noise; with counts 10 000 and 8 000, 2000 > 3·√18000 ≈ 402.
    expect(differences(run({ offered: 1050, offeredRate: 100 }), run({ offered: 950, offeredRate: 80 }))).toEqual([]);
    expect(differences(run({ offered: 10_000, offeredRate: 100 }), run({ offered: 8000, offeredRate: 80 }))).toHaveLength(1);
    // Exactly on the edge: |b − c| = 3·√(b + c) with b + c = 400 and |b − c| = 60 (b = 230, c = 170).
    expect(differences(run({ offered: 230, offeredRate: 100 }), run({ offered: 170, offeredRate: 80 }))).toEqual([]);
    expect(differences(run({ offered: 231, offeredRate: 100 }), run({ offered: 170, offeredRate: 80 }))).toHaveLength(1);
  });

  it('two runs that offered nothing are the same experiment', () => {
    expect(differences(run({ offered: 0, offeredRate: 0 }), run({ offered: 0, offeredRate: 0 }))).toEqual([]);
  });
});

describe('assertComparable', () => {
  it('refuses every difference at once, naming both sources and --force', () => {
    const b = run({ source: 'runs/a' });
    const c = run({ source: 'runs/b', scenario: 'other', targetKind: 'emulator' });
    let caught: unknown;
    try {
      assertComparable(b, c, false);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const issues = (caught as ConfigError).issues;
    expect(issues).toHaveLength(2);
    for (const i of issues) {
      expect(i.where).toBe('runs/a vs runs/b');
      expect(i.message).toMatch(/ \(--force compares them anyway\)$/);
    }
  });

  it('with force, returns what it compared anyway; the same experiment returns nothing', () => {
    const c = run({ scenario: 'other' });
    expect(assertComparable(run(), c, true)).toEqual(differences(run(), c));
    expect(assertComparable(run(), run(), false)).toEqual([]);
    expect(assertComparable(run(), run(), true)).toEqual([]);
  });
});
