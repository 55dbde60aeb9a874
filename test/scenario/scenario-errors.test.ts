import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/core/index.js';
import { loadScenario, parseScenario } from '../../src/scenario/index.js';

const dir = 'test/scenario/fixtures';

async function issuesOf(file: string, env: Record<string, string> = {}): Promise<string[]> {
  try {
    await loadScenario(`${dir}/${file}`, { env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map(
      (i: ConfigIssue) => `${i.where.replace(`${dir}/`, '')}  ${i.message}`,
    );
  }
  throw new Error(`${file} loaded without errors`);
}

// Golden lists: every problem of each broken file, in file order, located at line:column.
describe('broken scenario files report every problem at once', () => {
  it('YAML with many mistakes', async () => {
    expect(await issuesOf('broken-fields.yaml')).toEqual([
      'broken-fields.yaml:4:9  target.auth: expected one of bearer | bare | none, got "beerer" (did you mean "bearer"?)',
      'broken-fields.yaml:5:3  target.timout: unknown key "timout" (did you mean "timeout"?)',
      'broken-fields.yaml:9:27  phases[1].ramp.to: expected a number, got "fast"',
      'broken-fields.yaml:10:18  phases[2].ramp: a count phase takes a rate or nothing, not ramp',
      'broken-fields.yaml:11:5  phases[3]: a phase needs one of rate, ramp, vus (each with a duration), count or replay',
      'broken-fields.yaml:12:5  phases[4]: a phase with rate needs a duration',
      'broken-fields.yaml:12:16  phases[4].vus: a phase takes exactly one of rate, ramp, vus; found rate and vus',
      'broken-fields.yaml:15:13  flows[0].weight: must be greater than 0, got 0',
      'broken-fields.yaml:17:28  flows[0].steps[0].run.input.n: uses {{row.x}} but the scenario has no data feed (add data.file)',
      'broken-fields.yaml:17:44  flows[0].steps[0].run.input.m: unknown placeholder {{bogus}}; use {{row.field}}, {{trace.inputTokens}}, {{trace.outputTokens}}, {{trace.prompt}}, {{iteration}}, {{flow}}, {{random:min:max}}, {{length:<distribution>}}, {{text:<distribution>}}, {{length:row.field}} or {{text:row.field}}',
      'broken-fields.yaml:18:9  flows[0].steps[1].pol: unknown step "pol" (did you mean "poll"?)',
      'broken-fields.yaml:19:24  flows[0].steps[2].poll.until: expected one of final | IN_QUEUE | IN_PROGRESS | COMPLETED | FAILED | CANCELLED | TIMED_OUT, got "DONE"',
      'broken-fields.yaml:19:40  flows[0].steps[2].poll.interval: expected a duration like 500ms, 30s, 1m, 1h30m or 2d, got "5 parsecs"',
      'broken-fields.yaml:20:32  flows[0].steps[3].sleep.max: expected a duration like 500ms, 30s, 1m, 1h30m or 2d, got "soon"',
      'broken-fields.yaml:21:9  flows[0].steps[4].advance: advance needs emulator.clock: manual',
      'broken-fields.yaml:22:54  flows[0].steps[5].loop.steps[1].stauts: unknown step "stauts" (did you mean "status"?)',
      'broken-fields.yaml:23:9  flows[0].steps[6]: a step has exactly one key, found 2: run, poll (are its options indented under it?)',
      'broken-fields.yaml:25:9  flows[0].steps[7]: a step is an object with one key: write "purge: {}"',
      'broken-fields.yaml:26:30  flows[0].steps[8].cancel.when: cancel takes after or when, not both',
      'broken-fields.yaml:27:11  flows[1].name: duplicate flow name "a" (also flows[0])',
      "broken-fields.yaml:28:16  flows[1].steps[0].retry: retry acts on the flow's job: put a run or runsync step before it",
    ]);
  });

  it('YAML syntax errors, all of them, without schema noise about the half-parsed rest', async () => {
    expect(await issuesOf('broken-syntax.yaml')).toEqual([
      'broken-syntax.yaml:4:1  YAML: Flow map in block collection must be sufficiently indented and end with a }',
      'broken-syntax.yaml:6:1  YAML: Missing closing "quote',
    ]);
  });

  it('unset environment variables, at the line of the ${…}, ignoring comments', async () => {
    expect(await issuesOf('broken-env.yaml')).toEqual([
      'broken-env.yaml:4:17  environment variable DURATION is not set (write ${DURATION:-default} to give a default)',
      'broken-env.yaml:8:26  environment variable HOOK is not set (write ${HOOK:-default} to give a default)',
      // A default that is not a duration is reported where the user wrote it, not where it landed.
      'broken-env.yaml:9:26  flows[0].steps[1].poll.timeout: expected a duration like 500ms, 30s, 1m, 1h30m or 2d, got "oops"',
    ]);
  });

  it('JSON, located like YAML', async () => {
    expect(await issuesOf('broken.json')).toEqual([
      'broken.json:3:42  phases[0].rate: must be at least 0, got -1',
      'broken.json:7:47  flows[0].steps[0].run.policy.ttl: expected a duration like 500ms, 30s, 1m, 1h30m or 2d, got "forever"',
      'broken.json:7:90  flows[0].steps[1].stream.interval: must be longer than 0',
      'broken.json:10:3  extra: unknown key "extra"; known keys: $schema, name, description, target, emulator, worker, scaling, arrivals, phases, warmup, flows, data, llm, thresholds, tags, export, compare, checks',
    ]);
  });

  it('a JavaScript module, by key path', async () => {
    expect(await issuesOf('broken-module.js')).toEqual([
      'broken-module.js  flows[0].steps[1].probe: expected one of limits | auth | management | requests, got "everything"',
      'broken-module.js  phases[0]: a phase needs one of rate, ramp, vus (each with a duration), count or replay',
      'broken-module.js  phases[0].rat: unknown key "rat" (did you mean "rate"?)',
    ]);
  });

  it('a module without a default export', async () => {
    expect(await issuesOf('no-default.js')).toEqual([
      'no-default.js  the module has no default export (write: export default defineScenario({...}))',
    ]);
  });

  it('data feed problems: unknown columns in the scenario, bad rows in the feed', async () => {
    expect(await issuesOf('with-feed.yaml')).toEqual([
      'with-feed.yaml:7:95  flows[0].steps[0].run.input.missing: uses {{row.nope}} but the data feed has no column "nope" (it has user, prompt, size)',
    ]);
    const text =
      'name: f\ndata: { file: bad-rows.csv }\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n';
    expect(() => parseScenario(text, `${dir}/inline.yaml`)).toThrow(
      new ConfigError([
        { where: `${dir}/bad-rows.csv:3`, message: 'row has 1 fields, the header has 2' },
        { where: `${dir}/bad-rows.csv:4`, message: 'quoted field is never closed' },
      ]),
    );
  });
});

describe('single rules', () => {
  const base = 'name: t\nphases: [{ duration: 1s, rate: 1 }]\n';
  const cases: [string, string, string[]][] = [
    ['empty document', '', ['x.yaml:1:1  expected an object, got nothing']],
    [
      'missing name',
      'phases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      ['x.yaml:1:1  name: missing (expected a string)'],
    ],
    [
      'no phases, no flows',
      'name: t\nphases: []\nflows: []\n',
      ['x.yaml:2:9  phases: needs at least 1 entry', 'x.yaml:3:8  flows: needs at least 1 entry'],
    ],
    [
      'count with duration',
      'name: t\nphases: [{ count: 3, duration: 1s }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      ['x.yaml:2:22  phases[0].duration: a count phase takes no duration: it lasts count / rate'],
    ],
    [
      'loops nested too deep',
      `${base}flows: [{ name: f, steps: [{ loop: { times: 1, steps: [{ loop: { times: 1, steps: [{ loop: { times: 1, steps: [{ loop: { times: 1, steps: [{ health: {} }] } }] } }] } }] } }] }]\n`,
      [
        'x.yaml:3:114  flows[0].steps[0].loop.steps[0].loop.steps[0].loop.steps[0].loop: loops nest at most 3 deep',
      ],
    ],
    [
      'loop without steps',
      `${base}flows: [{ name: f, steps: [{ loop: { times: 0, steps: [] } }] }]\n`,
      [
        'x.yaml:3:45  flows[0].steps[0].loop.times: must be at least 1, got 0',
        'x.yaml:3:55  flows[0].steps[0].loop.steps: needs at least 1 entry',
      ],
    ],
    [
      'sleep range upside down',
      `${base}flows: [{ name: f, steps: [{ sleep: { min: 2s, max: 1s } }] }]\n`,
      ['x.yaml:3:53  flows[0].steps[0].sleep.max: must not be less than min'],
    ],
    [
      'webhook neither URL nor true',
      `${base}flows: [{ name: f, steps: [{ run: { webhook: "not a url" } }, { run: { webhook: false } }] }]\n`,
      [
        'x.yaml:3:46  flows[0].steps[0].run.webhook: expected a URL or true, got "not a url"',
        'x.yaml:3:81  flows[0].steps[1].run.webhook: does not match any accepted form, got false',
      ],
    ],
    [
      'random placeholder upside down',
      `${base}flows: [{ name: f, steps: [{ run: { input: { a: "{{random:9:1}}" } } }] }]\n`,
      ['x.yaml:3:49  flows[0].steps[0].run.input.a: {{random:9:1}}: min is greater than max'],
    ],
    [
      'step that is not an object',
      `${base}flows: [{ name: f, steps: [42, {}] }]\n`,
      [
        'x.yaml:3:28  flows[0].steps[0]: expected a step (an object with one key: run, runsync, poll, stream, cancel, retry, status, purge, health, sleep, advance, loop, probe, blast, openai, requests, traceJob), got 42',
        'x.yaml:3:32  flows[0].steps[1]: an empty step: name one of run, runsync, poll, stream, cancel, retry, status, purge, health, sleep, advance, loop, probe, blast, openai, requests, traceJob',
      ],
    ],
    [
      'workers and retry bounds',
      `${base}emulator: { workersMin: 5, workersMax: 2 }\ntarget: { retry429: { base: 10s, max: 1s } }\nflows: [{ name: f, steps: [{ health: {} }] }]\n`,
      [
        'x.yaml:3:25  emulator.workersMin: must not exceed workersMax (2)',
        'x.yaml:4:29  target.retry429.base: must not exceed max',
      ],
    ],
    [
      'a warm-up as long as the phases',
      'name: t\nwarmup: 3s\nphases: [{ duration: 1s, rate: 1 }, { count: 4, rate: 2 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      ['x.yaml:2:9  warmup: must be shorter than the phases (3s in all), or nothing is measured'],
    ],
    [
      'a warm-up that is not a duration',
      'name: t\nwarmup: soon\nphases: [{ duration: 1s, rate: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      ['x.yaml:2:9  warmup: expected a duration like 500ms, 30s, 1m, 1h30m or 2d, got "soon"'],
    ],
    [
      'unknown data feed type',
      `${base}data: { file: rows.xlsx }\nflows: [{ name: f, steps: [{ health: {} }] }]\n`,
      ['x.yaml:3:15  data.file: expected a .csv, .jsonl, .ndjson file, got "rows.xlsx"'],
    ],
    [
      'missing data feed file',
      `${base}data: { file: nowhere.csv }\nflows: [{ name: f, steps: [{ health: {} }] }]\n`,
      ['x.yaml:3:15  data.file: cannot read the data feed nowhere.csv (ENOENT)'],
    ],
    [
      'duplicate keys are reported and the rest still checked',
      'name: a\nname: b\nphases: [{ duration: 1s, rate: x }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n',
      [
        'x.yaml:2:1  YAML: Map keys must be unique',
        'x.yaml:3:32  phases[0].rate: expected a number, got "x"',
      ],
    ],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    let issues: string[] = [];
    try {
      parseScenario(text, 'x.yaml');
    } catch (err) {
      issues = (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`);
    }
    expect(issues).toEqual(expected);
  });

  it('suggests nothing for a name far from every step', () => {
    expect(() =>
      parseScenario(
        `name: t\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ frobnicate: {} }] }]\n`,
        'x.yaml',
      ),
    ).toThrow(
      'x.yaml:3:30: flows[0].steps[0].frobnicate: unknown step "frobnicate"; steps are run, runsync, poll, stream, cancel, retry, status, purge, health, sleep, advance, loop, probe',
    );
  });
});
