import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { fitDuration, loadScenario, scaleRates, totalDurationMs } from '../../src/scenario/index.js';

const FLOW = `flows:
  - name: f
    steps:
      - run: { input: { max_tokens: "{{trace.outputTokens}}" } }
`;

/** A row at the start and one in the window from 1 s to 5 s that the tests below replay. */
const WINDOW_ROWS =
  '{"timestamp": 0, "input_length": 1, "output_length": 2}\n{"timestamp": 2000, "input_length": 1, "output_length": 2}\n';

async function load(
  phase: string,
  trace = '{"timestamp": 0, "input_length": 1, "output_length": 2}\n',
  flow = FLOW,
) {
  const dir = await mkdtemp(join(tmpdir(), 'jobstorm-trace-phase-'));
  await writeFile(join(dir, 'trace.jsonl'), trace);
  const file = join(dir, 's.yaml');
  await writeFile(file, `name: s\nphases:\n  - ${phase}\n${flow}`);
  return { dir, file, loading: loadScenario(file) };
}

async function messages(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(err)}`);
  return err.issues.map((i) => `${i.where}: ${i.message}`);
}

describe('trace phases in a scenario', () => {
  it('normalizes a replay phase, its file relative to the scenario file', async () => {
    const { dir, loading } = await load(
      '{ replay: { file: trace.jsonl, format: mooncake, timeScale: 2, from: 1s, to: 5s, loop: true } }',
      WINDOW_ROWS,
    );
    const s = await loading;
    expect(s.phases[0]).toEqual({
      kind: 'trace',
      name: undefined,
      file: join(dir, 'trace.jsonl'),
      format: 'mooncake',
      timeScale: 2,
      fromMs: 1000,
      toMs: 5000,
      loops: 2,
    });
  });

  it('refuses an unknown format', async () => {
    const { loading } = await load('{ replay: { file: trace.jsonl, format: sharegpt } }');
    expect((await messages(loading)).join('\n')).toMatch(/phases\[0\]\.replay\.format.*mooncake/);
  });

  it('refuses a replay with a rate or a duration', async () => {
    const { loading } = await load(
      '{ rate: 5, duration: 10s, replay: { file: trace.jsonl, format: mooncake } }',
    );
    const all = (await messages(loading)).join('\n');
    expect(all).toContain('a replay phase takes its arrivals from the trace; it takes no rate');
    expect(all).toContain('it takes no duration');
  });

  it('names phases[0].replay and each malformed row at file:line', async () => {
    const rows = '{"timestamp": 0, "input_length": 1, "output_length": 2}\n{"timestamp": 5}\nnot json\n';
    const { dir, loading } = await load('{ replay: { file: trace.jsonl, format: mooncake } }', rows);
    const all = await messages(loading);
    expect(all.join('\n')).toMatch(/phases\[0\]\.replay.*has bad rows/);
    expect(all).toContain(
      `${join(dir, 'trace.jsonl')}:2: input_length: missing (expected a number >= 0); output_length: missing (expected a number >= 0)`,
    );
    expect(all.some((m) => m.startsWith(`${join(dir, 'trace.jsonl')}:3: not valid JSON`))).toBe(true);
  });

  it('refuses a missing trace file and {{trace.*}} without a trace phase', async () => {
    const missing = await load('{ replay: { file: nothing.jsonl, format: mooncake } }');
    expect((await messages(missing.loading)).join('\n')).toMatch(
      /phases\[0\]\.replay\.file.*cannot read the trace/,
    );
    const noTrace = await load('{ rate: 1, duration: 1s }');
    expect((await messages(noTrace.loading)).join('\n')).toContain(
      'uses {{trace.*}} but no phase replays a trace',
    );
  });

  it('--rate-scale multiplies the time scale; --duration refuses a trace phase', async () => {
    const { loading } = await load(
      '{ replay: { file: trace.jsonl, format: mooncake, timeScale: 2, from: 1s, to: 5s } }',
      WINDOW_ROWS,
    );
    const s = await loading;
    expect(scaleRates(s, 3).phases[0]).toMatchObject({ kind: 'trace', timeScale: 6 });
    // The window's 4 s at twice the speed.
    expect(totalDurationMs(s.phases)).toBe(2000);
    expect(() => fitDuration(s, 1000)).toThrow(/--duration: cannot fit phases\[0\], which replays a trace/);
  });

  it('refuses a window that holds no row, and takes one that holds some', async () => {
    const rows = '{"timestamp": 1000, "input_length": 1, "output_length": 2}\n{"timestamp": 4000, "input_length": 1, "output_length": 2}\n';
    const empty = await load('{ replay: { file: trace.jsonl, format: mooncake, from: 1s, to: 2s } }', rows);
    expect((await messages(empty.loading)).join('\n')).toMatch(
      /phases\[0\]\.replay: trace\.jsonl: the window from 1s to 2s holds no row of the trace \(from and to count from its first row\): the phase would send nothing/,
    );
    const past = await load('{ replay: { file: trace.jsonl, format: mooncake, from: 5s } }', rows);
    expect((await messages(past.loading)).join('\n')).toMatch(/the window from 5s holds no row/);
    const held = await load('{ replay: { file: trace.jsonl, format: mooncake, from: 2s, to: 4s } }', rows);
    await expect(held.loading).resolves.toMatchObject({ phases: [{ fromMs: 2000, toMs: 4000 }] });
  });

  describe('traceJob, the step that replays a job trace', () => {
    const JOBS = '{"at": 0, "op": "run"}\n{"at": 10, "op": "runsync"}\n{"at": 20, "op": "openai", "outputTokens": 5}\n';
    const flow = (step: string): string => `flows:\n  - name: f\n    steps:\n      - ${step}\n`;

    it('loads with a job trace, its submissions defaulting to empty inputs', async () => {
      const { loading } = await load(
        '{ replay: { file: trace.jsonl, format: jobstorm } }',
        JOBS,
        flow('traceJob: { runsync: { wait: 5s }, openai: { body: { model: m, messages: [] } } }'),
      );
      const s = await loading;
      expect(s.flows[0]?.steps[0]).toMatchObject({
        kind: 'traceJob',
        run: { kind: 'run', input: {} },
        runsync: { kind: 'runsync', input: {}, waitMs: 5000 },
        openai: { kind: 'openai', path: 'chat/completions' },
      });
    });

    it('needs a phase that replays a job trace, not another format', async () => {
      const { loading } = await load(
        '{ replay: { file: trace.jsonl, format: mooncake } }',
        undefined,
        flow('traceJob: {}'),
      );
      expect((await messages(loading)).join('\n')).toMatch(
        /flows\[0\]\.steps\[0\]\.traceJob: traceJob replays the jobs of a job trace: add a phase with replay: \{ file, format: jobstorm \}/,
      );
    });

    it('refuses a job trace with an openai job when no traceJob says how to send one, naming its line', async () => {
      const { loading } = await load('{ replay: { file: trace.jsonl, format: jobstorm } }', JOBS, flow('traceJob: {}'));
      expect((await messages(loading)).join('\n')).toMatch(
        /phases\[0\]\.replay: trace\.jsonl:3 is an openai job, but no traceJob step says how to send one/,
      );
    });

    it('checks the templates of its submissions at their keys', async () => {
      const { loading } = await load(
        '{ replay: { file: trace.jsonl, format: jobstorm } }',
        '{"at": 0, "op": "run"}\n',
        flow('traceJob: { run: { input: { x: "{{row.id}}" } } }'),
      );
      expect((await messages(loading)).join('\n')).toMatch(
        /flows\[0\]\.steps\[0\]\.traceJob\.run\.input\.x: uses \{\{row\.id\}\} but the scenario has no data feed/,
      );
    });
  });
});
