import { describe, expect, it } from 'vitest';
import {
  capStepTimeouts,
  fitDuration,
  parseScenario,
  scaleRates,
  totalDurationMs,
  withWarmup,
  type Phase,
  type Scenario,
} from '../../src/scenario/index.js';

function scenarioWith(phases: Phase[]): Scenario {
  const base = parseScenario(
    'name: s\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
    's.yaml',
  );
  return { ...base, phases };
}

const mixed: Phase[] = [
  { kind: 'constant', name: 'warm', durationMs: 10_000, rate: 50 },
  { kind: 'ramp', durationMs: 20_000, from: 50, to: 200 },
  { kind: 'count', count: 100, rate: 20 },
  { kind: 'count', count: 10 },
  { kind: 'vus', durationMs: 5000, vus: 10 },
];

describe('fitDuration', () => {
  it.each<[string, Phase[], number, Phase[]]>([
    [
      'halves a mixed scenario: timed phases shorter, count phases faster, instant phases untouched',
      mixed,
      20_000,
      [
        { kind: 'constant', name: 'warm', durationMs: 5000, rate: 50 },
        { kind: 'ramp', durationMs: 10_000, from: 50, to: 200 },
        { kind: 'count', count: 100, rate: 40 },
        { kind: 'count', count: 10 },
        { kind: 'vus', durationMs: 2500, vus: 10 },
      ],
    ],
    [
      'stretches too',
      [{ kind: 'constant', durationMs: 1000, rate: 5 }],
      3000,
      [{ kind: 'constant', durationMs: 3000, rate: 5 }],
    ],
    [
      'a count phase alone keeps its count',
      [{ kind: 'count', count: 50, rate: 10 }],
      1000,
      [{ kind: 'count', count: 50, rate: 50 }],
    ],
    [
      'only instant phases: nothing to fit',
      [{ kind: 'count', count: 50 }],
      1000,
      [{ kind: 'count', count: 50 }],
    ],
  ])('%s', (_name, phases, total, expected) => {
    const fitted = fitDuration(scenarioWith(phases), total);
    expect(fitted.phases).toEqual(expected);
    if (expected.some((p) => p.kind !== 'count' || p.rate !== undefined))
      expect(totalDurationMs(fitted.phases)).toBeCloseTo(total, 6);
  });

  it('does not touch the input and rejects a non-positive total', () => {
    const s = scenarioWith(mixed);
    fitDuration(s, 1000);
    expect(s.phases).toEqual(mixed);
    expect(() => fitDuration(s, 0)).toThrow(RangeError);
    expect(() => fitDuration(s, Number.NaN)).toThrow(RangeError);
  });
});

describe('warm-up', () => {
  it('is read as ms, left out when 0, and scales with --duration so it never outlasts a quick check', () => {
    const parsed = parseScenario(
      'name: s\nwarmup: 2s\nphases: [{ duration: 10s, rate: 5 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      's.yaml',
    );
    expect(parsed.warmupMs).toBe(2000);
    expect(
      parseScenario(
        'name: s\nwarmup: 0s\nphases: [{ duration: 10s, rate: 5 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
        's.yaml',
      ),
    ).not.toHaveProperty('warmupMs');
    expect(fitDuration(parsed, 5000).warmupMs).toBe(1000);
    expect(withWarmup(parsed, 0)).not.toHaveProperty('warmupMs');
    expect(withWarmup(parsed, 300).warmupMs).toBe(300);
    expect(parsed.warmupMs).toBe(2000);
  });
});

describe('scaleRates', () => {
  it.each<[string, number, Phase[]]>([
    [
      'doubles every rate; counts and users follow so phase lengths stay',
      2,
      [
        { kind: 'constant', name: 'warm', durationMs: 10_000, rate: 100 },
        { kind: 'ramp', durationMs: 20_000, from: 100, to: 400 },
        { kind: 'count', count: 200, rate: 40 },
        { kind: 'count', count: 20 },
        { kind: 'vus', durationMs: 5000, vus: 20 },
      ],
    ],
    [
      'a tenth, never below one arrival or one user',
      0.01,
      [
        { kind: 'constant', name: 'warm', durationMs: 10_000, rate: 0.5 },
        { kind: 'ramp', durationMs: 20_000, from: 0.5, to: 2 },
        { kind: 'count', count: 1, rate: 0.2 },
        { kind: 'count', count: 1 },
        { kind: 'vus', durationMs: 5000, vus: 1 },
      ],
    ],
  ])('%s', (_name, factor, expected) => {
    const scaled = scaleRates(scenarioWith(mixed), factor);
    expect(scaled.phases).toEqual(expected);
    expect(totalDurationMs(scaled.phases.filter((p) => p.kind !== 'count'))).toBe(
      totalDurationMs(mixed.filter((p) => p.kind !== 'count')),
    );
  });

  it('rejects a factor that is not positive', () => {
    expect(() => scaleRates(scenarioWith(mixed), 0)).toThrow(RangeError);
    expect(() => scaleRates(scenarioWith(mixed), -1)).toThrow(RangeError);
  });
});

describe('capStepTimeouts', () => {
  it('caps poll and stream timeouts (in loops too) at the bound, and leaves shorter ones and other steps alone', () => {
    const s = parseScenario(
      `name: s
phases: [{ count: 1 }]
flows:
  - name: f
    steps:
      - run: { input: {} }
      - poll: { until: final, timeout: 120s }
      - stream: { timeout: 2s }
      - loop: { times: 2, steps: [{ poll: { until: final, timeout: 60s } }, { stream: { timeout: 90s } }] }
      - runsync: { input: {}, wait: 60s }
`,
      's.yaml',
    );
    const capped = capStepTimeouts(s, 40_000);
    const [, poll, stream, loop, runsync] = capped.flows[0]?.steps ?? [];
    expect(poll).toMatchObject({ kind: 'poll', timeoutMs: 40_000 });
    expect(stream).toMatchObject({ kind: 'stream', timeoutMs: 2000 });
    expect(
      loop?.kind === 'loop' ? loop.steps.map((x) => ('timeoutMs' in x ? x.timeoutMs : undefined)) : undefined,
    ).toEqual([40_000, 40_000]);
    expect(runsync).toEqual(s.flows[0]?.steps[4]);
    // Pure: the scenario it was given is unchanged.
    expect(s.flows[0]?.steps[1]).toMatchObject({ timeoutMs: 120_000 });
  });
});
