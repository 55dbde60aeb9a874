import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { parseScenario, scenarioJsonSchema } from '../../src/scenario/index.js';

const base = 'name: w\nphases: [{ count: 1 }]\nflows: [{ name: f, steps: [{ health: {} }] }]\n';

function issues(text: string): string[] {
  try {
    parseScenario(text, 'w.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.where}  ${i.message}`);
  }
  throw new Error('parsed without errors');
}

describe('the worker: section', () => {
  it('is optional; scaling fields it leaves out come from emulator:', () => {
    expect(parseScenario(base, 'w.yaml').worker).toBeUndefined();
    const s = parseScenario(
      `${base}emulator: { workersMin: 1, workersMax: 3, idleTimeout: 2s }\nworker:\n  command: python3 handler.py\n  env: { MODEL: tiny }\n`,
      'w.yaml',
    );
    expect(s.worker).toEqual({
      command: 'python3 handler.py',
      env: { MODEL: 'tiny' },
      workersMin: 1,
      workersMax: 3,
      idleTimeoutMs: 2000,
      stopGraceMs: 10_000,
    });
    const own = parseScenario(
      `${base}worker: { command: ./w, workersMin: 0, workersMax: 4, idleTimeout: 1s, stopGrace: 500ms }\n`,
      'w.yaml',
    );
    expect(own.worker).toMatchObject({ workersMin: 0, workersMax: 4, idleTimeoutMs: 1000, stopGraceMs: 500 });
  });

  it('reports every problem at once, at file:line:column', () => {
    const text = `${base}emulator: { clock: manual }\nworker:\n  comand: x\n  workersMin: 5\n  workersMax: 2\n  env: { A: 1 }\n`;
    expect(issues(text)).toEqual(
      [
        'w.yaml:5:1  worker.command: missing (expected a string)',
        'w.yaml:6:3  worker.comand: unknown key "comand" (did you mean "command"?)',
        'w.yaml:5:1  worker: real workers need emulator.clock: real (their long-polls and heartbeats run on wall time)',
        'w.yaml:7:15  worker.workersMin: workersMin (5) must not exceed workersMax (2)',
        'w.yaml:9:13  worker.env.A: expected a string, got 1',
      ].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
    );
  });

  it('is in the JSON Schema, documented', () => {
    const schema = scenarioJsonSchema() as {
      properties: Record<
        string,
        { description?: string; properties?: Record<string, { description?: string }> }
      >;
    };
    const worker = schema.properties.worker;
    expect(worker?.description).toMatch(/your own worker/i);
    expect(Object.keys(worker?.properties ?? {})).toEqual([
      'command',
      'env',
      'workersMin',
      'workersMax',
      'idleTimeout',
      'stopGrace',
    ]);
  });
});
