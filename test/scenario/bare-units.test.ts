import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { byteSizeIssue } from '../../src/scenario/byte-size.js';
import { DURATION_PATTERN, durationIssue } from '../../src/scenario/duration.js';
import { loadScenario, parseScenario, scenarioJsonSchema } from '../../src/scenario/index.js';

/*
 * Issue 34 trap 1: a bare number in a duration or size field used to be milliseconds (or bytes),
 * silently: `duration: 10` ran for 10 ms and passed. Now it is a configuration error at the field,
 * offering both readings, in every scenario format, all at once.
 */

const S10 = '10 has no unit: write "10s" (10 seconds) or "10ms" (10 milliseconds)';

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

async function moduleIssues(file: string): Promise<string[]> {
  try {
    await loadScenario(file);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`);
  }
  throw new Error(`${file} loaded without errors`);
}

describe('the message for a bare number', () => {
  it('offers seconds and milliseconds for a duration, bytes, kilobytes and megabytes for a size', () => {
    expect(durationIssue(10)).toBe(S10);
    expect(durationIssue(' 1 ')).toBe('1 has no unit: write "1s" (1 second) or "1ms" (1 millisecond)');
    expect(durationIssue('2.5')).toBe(
      '2.5 has no unit: write "2.5s" (2.5 seconds) or "2.5ms" (2.5 milliseconds)',
    );
    expect(byteSizeIssue(1000)).toBe(
      '1000 has no unit: write "1000B" (1000 bytes), "1000KB" (1000 kilobytes) or "1000MB" (1000 megabytes)',
    );
  });

  it('has nothing to say about 0, a value with its unit, or something that is no number', () => {
    for (const v of [0, '0', '10s', '10ms', 'soon', '-5', '']) expect(durationIssue(v)).toBeUndefined();
    for (const v of [0, '0', '10MB', 'big']) expect(byteSizeIssue(v)).toBeUndefined();
  });
});

// Every kind of duration field the schema reads, and the one size field, each with a bare number.
const YAML = `name: bare
target: { timeout: 30, stallAfter: 5000, retry429: { base: 100, max: "5000" } }
emulator: { idleTimeout: 5000, coldStart: 200 }
worker: { command: "true", idleTimeout: 5000, stopGrace: 10000 }
warmup: 5
phases:
  - { duration: 10, rate: 1 }
flows:
  - name: f
    steps:
      - run: { payloadBytes: 1000, policy: { ttl: 60000, executionTimeout: 600000 } }
      - poll: { interval: 500, maxInterval: 5000, timeout: 60000 }
      - stream: { interval: 100, timeout: 60000 }
      - runsync: { wait: 5000 }
      - status: { ttl: 6000 }
      - cancel: { after: 100 }
      - sleep: 10
      - sleep: { min: 10, max: 2s }
      - sleep: "10"
      - blast: { op: health, duration: 10, rate: 1 }
`;

describe('a bare number in a scenario file is an error at its field, with both readings', () => {
  it('YAML: every duration and size field, all at once, at file:line:column', () => {
    const issues = issuesOf(() => parseScenario(YAML, 'bare.yaml'));
    expect(issues).toEqual([
      'bare.yaml:2:20  target.timeout: 30 has no unit: write "30s" (30 seconds) or "30ms" (30 milliseconds)',
      'bare.yaml:2:36  target.stallAfter: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:2:60  target.retry429.base: 100 has no unit: write "100s" (100 seconds) or "100ms" (100 milliseconds)',
      'bare.yaml:2:70  target.retry429.max: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:3:26  emulator.idleTimeout: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:3:43  emulator.coldStart: 200 has no unit: write "200s" (200 seconds) or "200ms" (200 milliseconds)',
      'bare.yaml:4:41  worker.idleTimeout: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:4:58  worker.stopGrace: 10000 has no unit: write "10000s" (10000 seconds) or "10000ms" (10000 milliseconds)',
      'bare.yaml:5:9  warmup: 5 has no unit: write "5s" (5 seconds) or "5ms" (5 milliseconds)',
      `bare.yaml:7:17  phases[0].duration: ${S10}`,
      'bare.yaml:11:30  flows[0].steps[0].run.payloadBytes: 1000 has no unit: write "1000B" (1000 bytes), "1000KB" (1000 kilobytes) or "1000MB" (1000 megabytes)',
      'bare.yaml:11:51  flows[0].steps[0].run.policy.ttl: 60000 has no unit: write "60000s" (60000 seconds) or "60000ms" (60000 milliseconds)',
      'bare.yaml:11:76  flows[0].steps[0].run.policy.executionTimeout: 600000 has no unit: write "600000s" (600000 seconds) or "600000ms" (600000 milliseconds)',
      'bare.yaml:12:27  flows[0].steps[1].poll.interval: 500 has no unit: write "500s" (500 seconds) or "500ms" (500 milliseconds)',
      'bare.yaml:12:45  flows[0].steps[1].poll.maxInterval: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:12:60  flows[0].steps[1].poll.timeout: 60000 has no unit: write "60000s" (60000 seconds) or "60000ms" (60000 milliseconds)',
      'bare.yaml:13:29  flows[0].steps[2].stream.interval: 100 has no unit: write "100s" (100 seconds) or "100ms" (100 milliseconds)',
      'bare.yaml:13:43  flows[0].steps[2].stream.timeout: 60000 has no unit: write "60000s" (60000 seconds) or "60000ms" (60000 milliseconds)',
      'bare.yaml:14:26  flows[0].steps[3].runsync.wait: 5000 has no unit: write "5000s" (5000 seconds) or "5000ms" (5000 milliseconds)',
      'bare.yaml:15:24  flows[0].steps[4].status.ttl: 6000 has no unit: write "6000s" (6000 seconds) or "6000ms" (6000 milliseconds)',
      'bare.yaml:16:26  flows[0].steps[5].cancel.after: 100 has no unit: write "100s" (100 seconds) or "100ms" (100 milliseconds)',
      `bare.yaml:17:16  flows[0].steps[6].sleep: ${S10}`,
      `bare.yaml:18:23  flows[0].steps[7].sleep.min: ${S10}`,
      `bare.yaml:19:16  flows[0].steps[8].sleep: ${S10}`,
      `bare.yaml:20:40  flows[0].steps[9].blast.duration: ${S10}`,
    ]);
  });

  it('an advance step (manual clock) of a bare number', () => {
    const text = `name: a\nemulator: { clock: manual }\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ advance: 10 }] }]\n`;
    expect(issuesOf(() => parseScenario(text, 'a.yaml'))).toEqual([
      `a.yaml:4:39  flows[0].steps[0].advance: ${S10}`,
    ]);
  });

  it('JSON: located like YAML', () => {
    const json = `{
  "name": "bare",
  "phases": [{ "duration": 10, "rate": 1 }],
  "flows": [{ "name": "f", "steps": [{ "run": {} }, { "poll": { "interval": "500" } }] }]
}`;
    expect(issuesOf(() => parseScenario(json, 'bare.json'))).toEqual([
      `bare.json:3:28  phases[0].duration: ${S10}`,
      'bare.json:4:77  flows[0].steps[1].poll.interval: 500 has no unit: write "500s" (500 seconds) or "500ms" (500 milliseconds)',
    ]);
  });

  const tmp = mkdtempSync(join(tmpdir(), 'jobstorm-bare-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('TypeScript: a module has no positions, so the file and the field path', async () => {
    const file = join(tmp, 'bare.scenario.ts');
    writeFileSync(
      file,
      `export default {
  name: 'bare',
  warmup: 5,
  phases: [{ duration: 10, rate: 1 }],
  flows: [{ name: 'f', steps: [{ run: { payloadBytes: 1000 } }, { sleep: { min: '1s', max: 2000 } }] }],
};
`,
    );
    expect(await moduleIssues(file)).toEqual([
      `${file}  flows[0].steps[0].run.payloadBytes: 1000 has no unit: write "1000B" (1000 bytes), "1000KB" (1000 kilobytes) or "1000MB" (1000 megabytes)`,
      `${file}  flows[0].steps[1].sleep.max: 2000 has no unit: write "2000s" (2000 seconds) or "2000ms" (2000 milliseconds)`,
      `${file}  phases[0].duration: ${S10}`,
      `${file}  warmup: 5 has no unit: write "5s" (5 seconds) or "5ms" (5 milliseconds)`,
    ]);
  });

  it('0 needs no unit; every other value keeps its meaning', () => {
    const s = parseScenario(
      `name: z\nwarmup: 0\nemulator: { coldStart: 0 }\nphases: [{ duration: 2s, rate: 1 }]\nflows: [{ name: f, steps: [{ run: { payloadBytes: 0 } }, { sleep: 0 }, { poll: { interval: 250ms } }] }]\n`,
      'z.yaml',
    );
    expect(s.warmupMs ?? 0).toBe(0);
    expect(s.emulator.coldStartMs).toBe(0);
    expect(s.phases[0]).toMatchObject({ durationMs: 2000 });
    expect(s.flows[0]?.steps).toMatchObject([
      { kind: 'run', payloadBytes: 0 },
      { kind: 'sleep', minMs: 0, maxMs: 0 },
      { kind: 'poll', intervalMs: 250 },
    ]);
  });

  it('a counted or rated field stays a plain number', () => {
    const s = parseScenario(
      `name: n\ntarget: { connections: 8, maxInFlight: 100, retry429: { attempts: 2 } }\nphases: [{ duration: 1s, rate: 0.5 }, { count: 3 }, { duration: 1s, vus: 2 }]\nflows: [{ name: f, weight: 2, steps: [{ loop: { times: 2, steps: [{ health: {} }] } }, { run: {} }, { poll: { backoff: 2 } }] }]\n`,
      'n.yaml',
    );
    expect(s.target.connections).toBe(8);
    expect(s.phases.map((p) => p.kind)).toEqual(['constant', 'count', 'vus']);
  });
});

interface Node {
  description?: string;
  default?: unknown;
  pattern?: string;
  anyOf?: Node[];
  [key: string]: unknown;
}

describe('the JSON Schema says a duration or size needs its unit', () => {
  const durationOrSize = (n: Node): 'duration' | 'size' | undefined => {
    const pattern = n.anyOf?.find((o) => typeof o.pattern === 'string')?.pattern;
    if (pattern === undefined) return undefined;
    if (pattern === DURATION_PATTERN.source) return 'duration';
    return pattern.includes('KiB') || pattern.includes('i?B') ? 'size' : undefined;
  };
  const fields: { path: string; node: Node; kind: 'duration' | 'size' }[] = [];
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const kind = durationOrSize(node as Node);
    if (kind !== undefined) fields.push({ path, node: node as Node, kind });
    for (const [key, child] of Object.entries(node)) walk(child, `${path}/${key}`);
  };
  walk(scenarioJsonSchema(), '#');

  it('finds every duration and size field', () => {
    const names = fields.map((f) => f.path.replace(/.*\/properties\//, ''));
    expect(names).toEqual(
      expect.arrayContaining(['duration', 'warmup', 'stallAfter', 'interval', 'ttl', 'wait', 'payloadBytes']),
    );
    expect(fields.length).toBeGreaterThanOrEqual(25);
  });

  it('each description says the unit is required, with an example', () => {
    const vague = fields.filter(
      ({ node, kind }) =>
        !(node.description ?? '').includes(`A ${kind} with its unit`) ||
        !/e\.g\. "\d+[a-zA-Zµ]+"/.test(node.description ?? '') ||
        !(node.description ?? '').includes('a bare number other than 0 is an error'),
    );
    expect(vague.map((f) => f.path)).toEqual([]);
  });

  it('accepts only strings and 0, and shows every default with its unit', () => {
    for (const { node } of fields) {
      expect(node.anyOf?.find((o) => o.type === 'number')).toEqual({ type: 'number', const: 0 });
      if (node.default !== undefined) expect(node.default).toMatch(/^\d+(?:us|ms|s|m|h|d)$/);
    }
    expect(fields.filter((f) => f.node.default !== undefined).length).toBeGreaterThanOrEqual(10);
  });
});
