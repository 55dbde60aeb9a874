import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { defineScenario, loadScenario, parseScenario, type Scenario } from '../../src/scenario/index.js';

const dir = 'test/scenario/fixtures';

describe('parseScenario normalizes into the typed Scenario', () => {
  it('fills every default and turns durations into milliseconds', () => {
    const text = `
name: full
phases:
  - { name: warm, duration: 30s, rate: 50 }
  - { duration: 1m, ramp: { from: 50, to: 200 } }
  - { count: 100, rate: 20 }
  - { count: 10 }
  - { duration: 1h30m, vus: 10 }
flows:
  - name: everything
    weight: 2.5
    steps:
      - run:
      - runsync: { input: { a: 1 }, webhook: true, policy: { ttl: 1m, executionTimeout: 5s, lowPriority: true }, payloadBytes: 10MB, wait: 5s }
      - poll:
      - stream: {}
      - cancel: { after: 100ms }
      - cancel: { when: IN_PROGRESS }
      - retry: {}
      - status: { ttl: 6s }
      - purge:
      - health: {}
      - sleep: 200ms
      - sleep: { min: 100ms, max: 2d }
      - loop: { times: 3, steps: [{ status: {} }] }
      - probe: auth
`;
    const s = parseScenario(text, 'full.yaml');
    const expected: Scenario = {
      name: 'full',
      source: 'full.yaml',
      target: { auth: 'bearer', connections: 64, stallAfterMs: 5000, maxInFlight: 1000 },
      emulator: {
        workersMin: 0,
        workersMax: 10,
        requestsPerWorker: 10,
        idleTimeoutMs: 5000,
        coldStartMs: 200,
        clock: 'real',
        streamShape: 'envelope',
        faults: [],
        profile: {},
      },
      arrivals: { process: 'uniform', seed: 1 },
      phases: [
        { kind: 'constant', name: 'warm', durationMs: 30_000, rate: 50 },
        { kind: 'ramp', durationMs: 60_000, from: 50, to: 200 },
        { kind: 'count', count: 100, rate: 20 },
        { kind: 'count', count: 10 },
        { kind: 'vus', durationMs: 5_400_000, vus: 10 },
      ],
      flows: [
        {
          name: 'everything',
          weight: 2.5,
          steps: [
            { kind: 'run', input: {} },
            {
              kind: 'runsync',
              input: { a: 1 },
              webhook: true,
              policy: { ttl: 60_000, executionTimeout: 5000, lowPriority: true },
              payloadBytes: 10_000_000,
              waitMs: 5000,
            },
            {
              kind: 'poll',
              until: 'final',
              intervalMs: 500,
              backoff: 1,
              maxIntervalMs: 5000,
              timeoutMs: 60_000,
            },
            { kind: 'stream', timeoutMs: 60_000, intervalMs: 100 },
            { kind: 'cancel', afterMs: 100 },
            { kind: 'cancel', when: 'IN_PROGRESS' },
            { kind: 'retry' },
            { kind: 'status', ttlMs: 6000 },
            { kind: 'purge' },
            { kind: 'health' },
            { kind: 'sleep', minMs: 200, maxMs: 200 },
            { kind: 'sleep', minMs: 100, maxMs: 172_800_000 },
            { kind: 'loop', times: 3, steps: [{ kind: 'status' }] },
            { kind: 'probe', probe: 'auth' },
          ],
        },
      ],
      thresholds: [],
    };
    expect(s).toEqual(expected);
  });

  it('keeps explicit target, emulator, arrival and threshold settings', () => {
    const s = parseScenario(
      `name: x
description: for a test
target: { auth: bare, connections: 8, timeout: 2s, stallAfter: 1500ms, maxInFlight: 5, retry429: { attempts: 2 } }
emulator: { clock: manual, streamShape: array, faults: [late-429], profile: { sleep_ms: 5 }, idleTimeout: 1m, coldStart: 0 }
arrivals: { process: poisson, seed: 7 }
phases: [{ count: 1 }]
flows: [{ name: f, steps: [{ run: {} }, { advance: 31m }] }]
thresholds: ["p99(run) < 500ms"]
`,
      'x.yaml',
    );
    expect(s.description).toBe('for a test');
    expect(s.target).toEqual({
      auth: 'bare',
      connections: 8,
      timeoutMs: 2000,
      stallAfterMs: 1500,
      maxInFlight: 5,
      retry429: { attempts: 2, baseMs: 100, maxMs: 5000 },
    });
    expect(s.emulator).toMatchObject({
      clock: 'manual',
      streamShape: 'array',
      faults: ['late-429'],
      profile: { sleep_ms: 5 },
      idleTimeoutMs: 60_000,
      coldStartMs: 0,
    });
    expect(s.arrivals).toEqual({ process: 'poisson', seed: 7 });
    expect(s.flows[0]?.steps[1]).toEqual({ kind: 'advance', ms: 1_860_000 });
    expect(s.thresholds).toEqual(['p99(run) < 500ms']);
  });

  it('interpolates ${ENV} and ${ENV:-default} before parsing, so variables can be numbers', () => {
    const text =
      'name: env-${WHO}\nphases: [{ duration: ${D:-2s}, rate: ${RATE:-5} }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n';
    const s = parseScenario(text, 'env.yaml', { env: { WHO: 'me', RATE: '12.5' } });
    expect(s.name).toBe('env-me');
    expect(s.phases).toEqual([{ kind: 'constant', durationMs: 2000, rate: 12.5 }]);
  });

  it('accepts a YAML anchor reused across flows', () => {
    const s = parseScenario(
      'name: a\nphases: [{ count: 1 }]\nflows:\n  - { name: one, steps: &steps [{ run: {} }, { poll: {} }] }\n  - { name: two, steps: *steps }\n',
      'a.yaml',
    );
    expect(s.flows.map((f) => f.steps.map((st) => st.kind))).toEqual([
      ['run', 'poll'],
      ['run', 'poll'],
    ]);
  });
});

describe('loadScenario by file type', () => {
  it('loads a TypeScript module written with defineScenario, interpolating its strings', async () => {
    const s = await loadScenario(`${dir}/valid.scenario.ts`, { env: { WHO: 'ts' } });
    expect(s.name).toBe('typed-ts');
    expect(s.phases).toEqual([
      { kind: 'constant', durationMs: 2000, rate: 10 },
      { kind: 'count', count: 5 },
    ]);
    expect(s.flows[0]?.steps[1]).toMatchObject({ kind: 'poll', until: 'COMPLETED', intervalMs: 50 });
  });

  it('loads a plain JavaScript module', async () => {
    const s = await loadScenario(`${dir}/valid.js`);
    expect(s.name).toBe('plain-js');
    expect(s.source).toBe(`${dir}/valid.js`);
  });

  it('loads a CSV data feed relative to the scenario file', () => {
    const text =
      'name: feed\ndata: { file: inputs.csv, order: random }\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ run: { input: { u: "{{row.user}}" } } }] }]\n';
    const s = parseScenario(text, `${dir}/inline.yaml`);
    expect(s.data?.order).toBe('random');
    expect(s.data?.file).toMatch(/test\/scenario\/fixtures\/inputs\.csv$/);
    expect(s.data?.columns).toEqual(['user', 'prompt', 'size']);
    expect(s.data?.rows).toEqual([
      { user: 'alice', prompt: 'hello, world', size: '10' },
      { user: 'bob', prompt: 'say "hi"', size: '20' },
    ]);
  });

  it('loads a JSON lines data feed, keeping value types', () => {
    const text =
      'name: feed\ndata: { file: inputs.jsonl }\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n';
    const s = parseScenario(text, `${dir}/inline.yaml`);
    expect(s.data?.order).toBe('sequential');
    expect(s.data?.columns).toEqual(['user', 'size', 'extra']);
    expect(s.data?.rows).toEqual([
      { user: 'carol', size: 30 },
      { user: 'dave', size: 40, extra: [1, 2] },
    ]);
  });

  const tmp = mkdtempSync(join(tmpdir(), 'jobstorm-scenario-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('loads .yml and .mts files too', async () => {
    writeFileSync(
      join(tmp, 'a.yml'),
      'name: yml\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
    );
    writeFileSync(
      join(tmp, 'b.mts'),
      "const phases: { count: number }[] = [{ count: 2 }];\nexport default { name: 'mts', phases, flows: [{ name: 'f', steps: [{ purge: {} }] }] };\n",
    );
    expect((await loadScenario(join(tmp, 'a.yml'))).name).toBe('yml');
    expect((await loadScenario(join(tmp, 'b.mts'))).phases).toEqual([{ kind: 'count', count: 2 }]);
  });

  it('loads CommonJS modules: a .cts with export default and a .cjs with module.exports', async () => {
    writeFileSync(
      join(tmp, 'c.cts'),
      "const phases: { count: number }[] = [{ count: 3 }];\nexport default { name: 'cts', phases, flows: [{ name: 'f', steps: [{ health: {} }] }] };\n",
    );
    writeFileSync(
      join(tmp, 'd.cjs'),
      "module.exports = { name: 'cjs', phases: [{ count: 1 }], flows: [{ name: 'f', steps: [{ health: {} }] }] };\n",
    );
    writeFileSync(join(tmp, 'e.cjs'), 'exports.notDefault = 1;\nexports.__esModule = true;\n');
    expect((await loadScenario(join(tmp, 'c.cts'))).phases).toEqual([{ kind: 'count', count: 3 }]);
    expect((await loadScenario(join(tmp, 'd.cjs'))).name).toBe('cjs');
    await expect(loadScenario(join(tmp, 'e.cjs'))).rejects.toThrow('the module has no default export');
  });

  it('reports a TypeScript syntax error at file:line:column with its message', async () => {
    const file = join(tmp, 'broken.cts');
    writeFileSync(file, "export default {\n  name: 'x',,\n  phases: [{ count: 1 }],\n};\n");
    await expect(loadScenario(file)).rejects.toThrow(
      new ConfigError([{ where: `${file}:2:13`, message: 'TypeScript: Expected identifier but found ","' }]),
    );
  });

  it('reports a module that fails to load as a ConfigError naming the file', async () => {
    writeFileSync(join(tmp, 'throws.mjs'), "throw new Error('boom');\n");
    await expect(loadScenario(join(tmp, 'throws.mjs'))).rejects.toThrow(
      new ConfigError([{ where: join(tmp, 'throws.mjs'), message: 'cannot load the scenario module: boom' }]),
    );
  });

  it('types defineScenario with the file format, so mistakes show in the editor', () => {
    const ok = defineScenario({
      name: 'x',
      phases: [{ duration: '1s', rate: 1 }],
      flows: [{ name: 'f', steps: [{ sleep: { min: '1ms', max: '2s' } }] }],
    });
    expect(ok.name).toBe('x');
    // @ts-expect-error a duration is a string with its unit: a bare 10 could mean 10 s or 10 ms
    defineScenario({ name: 'x', phases: [{ duration: 10, rate: 1 }], flows: [] });
    // @ts-expect-error rate is a number of arrivals per second, not a string
    defineScenario({ name: 'x', phases: [{ duration: '1s', rate: 'fast' }], flows: [] });
    // @ts-expect-error "pol" is not a step
    defineScenario({ name: 'x', phases: [{ count: 1 }], flows: [{ name: 'f', steps: [{ pol: {} }] }] });
  });

  it('refuses to parse a module as text', () => {
    expect(() => parseScenario('export default {}', 'x.ts')).toThrow('must be loaded with loadScenario');
  });

  it('refuses unknown extensions and missing files as ConfigError, not a stack trace', async () => {
    await expect(loadScenario(`${dir}/scenario.toml`)).rejects.toThrow(
      new ConfigError([
        {
          where: `${dir}/scenario.toml`,
          message:
            'unsupported scenario file type ".toml"; use .yaml, .yml, .json, .ts, .mts, .cts, .js, .mjs, .cjs',
        },
      ]),
    );
    await expect(loadScenario(`${dir}/absent.yaml`)).rejects.toThrow(
      new ConfigError([{ where: `${dir}/absent.yaml`, message: 'cannot read the scenario file (ENOENT)' }]),
    );
    await expect(loadScenario(`${dir}/absent.ts`)).rejects.toBeInstanceOf(ConfigError);
  });
});
