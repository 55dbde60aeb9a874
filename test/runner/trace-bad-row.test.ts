import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { arrivalsOf, emulatorTarget, inlineScenario, runCollecting } from './helpers.js';

/*
 * A trace longer than what the load validates (100,000 rows) is read as it plays: a bad row past
 * them ends its phase's arrivals there, and the run ends as at its end, keeping what it measured.
 * The scenario is given to the runner directly, as if the bad row were past the rows checked.
 */
describe('a bad trace row met while playing', () => {
  let emulator: EmulatorHandle | undefined;
  afterAll(async () => {
    await emulator?.close();
  });

  it('stops the arrivals at the row, names it, and keeps the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-trace-bad-row-'));
    const file = join(dir, 'trace.jsonl');
    const row = (t: number): string => JSON.stringify({ timestamp: t, input_length: 1, output_length: 2 });
    writeFileSync(
      file,
      [row(0), row(20), '{"timestamp": 40, "input_length": -1, "output_length": 2}', row(60)].join('\n'),
    );
    const base = inlineScenario(`name: bad-row
phases: [{ rate: 1, duration: 1s }]
flows: [{ name: f, steps: [{ run: { input: { max_tokens: 1 } } }] }]
`);
    const scenario: Scenario = {
      ...base,
      phases: [{ kind: 'trace', file, format: 'mooncake', timeScale: 1, loops: 1 }],
    };
    const started = await emulatorTarget();
    emulator = started.emulator;
    const { outcome, records } = await runCollecting(scenario, started.target);
    expect(arrivalsOf(records)).toHaveLength(2);
    expect(outcome.traceError).toBe(
      `the trace stopped at a bad row: ${file}:3: input_length: expected a number >= 0, found -1`,
    );
    expect(outcome.targetUnreachable).toBe(false);
    expect(outcome.counters.requests).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
