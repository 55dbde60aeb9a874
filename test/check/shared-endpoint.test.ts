import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { startEmulatorInWorker } from '../../src/emulator/in-worker.js';
import type { EmulatorHandle } from '../../src/emulator/start.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';

/**
 * Rate limits are per account and endpoint: two runs against one endpoint share them, and neither
 * can see the other's traffic. Each alone sends 70 cancels in about 2 s (under /cancel's 100 per
 * 10 s); together they pass the limit, so each gets 429s while its own count is under it.
 */
const SCENARIO = `
name: shared-cancels
target: { timeout: 10s }
phases:
  - { count: 70, rate: 35 }
flows:
  - name: run-and-cancel
    steps:
      - run: { input: { sleep_ms: 2000 } }
      - cancel: {}
`;

let emulator: EmulatorHandle;
let file: string;
beforeAll(async () => {
  emulator = await startEmulatorInWorker({ port: 0, workersMax: 4 });
  const dir = mkdtempSync(join(tmpdir(), 'jobstorm-shared-'));
  file = join(dir, 'shared.yaml');
  writeFileSync(file, SCENARIO);
});
afterAll(async () => {
  await emulator.close();
});

async function runs(extra: string[]): Promise<Summary[]> {
  const outs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'jobstorm-shared-run-')));
  await Promise.all(
    outs.map((out) =>
      runCli(
        ['run', file, '--target', emulator.url, '--out', out, '--quiet', '--no-preflight', ...extra],
        captureIo({ JOBSTORM_API_KEY: emulator.apiKey }),
      ),
    ),
  );
  return outs.map((out) => JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary);
}

const early = (s: Summary): { severity?: string; count: number } =>
  s.violations.find((v) => v.id === 'ratelimit.early') ?? { count: 0 };

describe('two runs at once against one endpoint', () => {
  it("without --exclusive-endpoint: 429s under the run's own count are warnings that say the limit may be shared, never errors", async () => {
    const summaries = await runs([]);
    const throttled = summaries.reduce((n, s) => n + (s.operations.cancel?.count429 ?? 0), 0);
    // The test means something only if the shared limit was actually hit.
    expect(throttled).toBeGreaterThan(0);
    const found = summaries.map(early).filter((e) => e.count > 0);
    expect(found.length).toBeGreaterThan(0);
    for (const e of found) expect(e.severity).toBe('warning');
    for (const s of summaries) {
      expect(s.violations.filter((v) => v.id === 'ratelimit.early' && v.severity === 'error')).toEqual([]);
      expect(s.violations.find((v) => v.id === 'ratelimit.early')?.examples[0]?.message).toContain(
        'may be shared with other clients',
      );
    }
  }, 90_000);

  it('with --exclusive-endpoint the same 429s are errors: the run said nobody else sends there', async () => {
    const summaries = await runs(['--exclusive-endpoint']);
    expect(summaries.some((s) => early(s).severity === 'error')).toBe(true);
  }, 90_000);
});
