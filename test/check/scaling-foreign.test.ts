import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { Summary } from '../../src/report/summary.js';
import { startPartialServer, type PartialServer } from '../foreign/partial-server.js';
import { captureIo } from '../helpers/cli-io.js';

/*
 * The scaling checks against servers that are not our emulator: one whose /health has no
 * workers.initializing, one without /health, and a --target run with no scaling: block. Each says
 * what it could not judge, in the summary and the reports, and finds nothing it cannot prove.
 */

let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function scenario(scaling: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'jobstorm-scaling-foreign-')), 'scaling-foreign.yaml');
  writeFileSync(
    file,
    `name: scaling-foreign
${scaling}
phases: [{ duration: 3s, rate: 4 }]
flows:
  - name: low
    steps:
      - run: { input: { prompt: "x" }, policy: { lowPriority: true } }
      - poll: { until: final, interval: 100ms, timeout: 2s }
  - name: normal
    steps:
      - run: { input: { prompt: "y" } }
      - poll: { until: final, interval: 100ms, timeout: 2s }
`,
  );
  return file;
}

async function runAgainst(
  base: string,
  file: string,
): Promise<{ code: number; summary: Summary; md: string; html: string }> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-scaling-foreign-out-'));
  const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
  const code = await runCli(
    ['run', file, '--target', base, '--exclusive-endpoint', '--out', out, '--quiet'],
    io,
  );
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  return {
    code,
    summary: JSON.parse(read('summary.json')) as Summary,
    md: read('summary.md'),
    html: read('report.html'),
  };
}

const SCALING = 'scaling: { workersMin: 1, workersMax: 4, idleTimeout: 5s, scaleUpWithin: 10s }';

describe('scaling checks on foreign servers', () => {
  it('/health without workers.initializing: workersMax judged, the rest says why not', async () => {
    server = await startPartialServer({ jobMs: 200 });
    const o = await runAgainst(server.base, scenario(SCALING));
    expect(o.summary.violations.filter((v) => v.id.startsWith('scaling.'))).toEqual([]);
    expect(o.summary.coverage['scaling.above-max']).toBeGreaterThan(0);
    for (const id of ['scaling.low-priority', 'scaling.stuck']) {
      expect(o.summary.coverage[id], id).toBe(0);
      expect(o.summary.checkNotes?.[id], id).toContain('does not report workers.initializing');
    }
    expect(o.md).toMatch(
      /scaling\.stuck`? \| 0 \| not exercised: \/health does not report workers\.initializing/,
    );
    expect(o.html).toContain('not exercised: /health does not report workers.initializing');
  }, 60_000);

  it('no /health at all: every scaling check not exercised, because the target does not serve it', async () => {
    server = await startPartialServer({ jobMs: 200, missing: ['health'] });
    const o = await runAgainst(server.base, scenario(SCALING));
    for (const id of [
      'scaling.low-priority',
      'scaling.above-max',
      'scaling.stuck',
      'scaling.no-scale-down',
    ]) {
      expect(o.summary.coverage[id], id).toBe(0);
      expect(o.summary.checkNotes?.[id], id).toBe('the target does not serve /health');
    }
  }, 60_000);

  it('--target with no scaling: block: the checks that need a setting name it, never guess', async () => {
    server = await startPartialServer({ jobMs: 200 });
    const o = await runAgainst(server.base, scenario(''));
    expect(o.summary.violations.filter((v) => v.id.startsWith('scaling.'))).toEqual([]);
    expect(o.summary.checkNotes?.['scaling.above-max']).toBe(
      "workersMax is not known: the scenario's scaling: block does not give it (state it under scaling:)",
    );
    expect(o.summary.checkNotes?.['scaling.no-scale-down']).toContain('workersMin is not known');
    for (const id of ['scaling.low-priority', 'scaling.above-max', 'scaling.stuck', 'scaling.no-scale-down'])
      expect(o.summary.coverage[id], id).toBe(0);
  }, 60_000);
});
