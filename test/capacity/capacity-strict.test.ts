import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../src/capacity/capacity-report.js';
import { captureIo } from '../helpers/cli-io.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { startPartialServer, type PartialServer } from '../foreign/partial-server.js';

/*
 * Issue 47: `capacity --strict`, as `run --strict`: an operation the target serves to another
 * method than the contract's is no longer sent. Against a server that takes /status only by POST,
 * a search's steps poll by POST without it, and stop polling with it.
 */

let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SCENARIO = `name: poll-by-post
phases: [{ duration: 3s, rate: 5 }]
flows:
  - name: run-and-poll
    steps:
      - run: { input: { sleep_ms: 100 } }
      - poll: { until: final, interval: 200ms, timeout: 5s }
`;

async function statusRequests(strict: boolean): Promise<number> {
  const clock = cliClock();
  server = await startPartialServer({ apiKey: 'k', postOnly: ['status'], jobMs: 1000, clock });
  const dir = mkdtempSync(join(tmpdir(), 'jobstorm-capacity-strict-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, SCENARIO);
  const out = join(dir, 'out');
  const io = captureIo({ JOBSTORM_API_KEY: 'k' });
  const args = ['capacity', file, '--target', server.base, '--slo', 'p99(run) < 10s', '--start', '5', '--max', '5'];
  args.push('--step-duration', '3s');
  const code = await runCliOnClock(
    [...args, '--warmup', '0s', '--mode', 'step', '--out', out, '--quiet', ...(strict ? ['--strict'] : [])],
    io,
    { clock },
  );
  expect(code, io.stderr.join('\n')).not.toBe(2);
  const report = JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
  const requests = report.steps[0]?.requests ?? 0;
  await server.close();
  server = undefined;
  return requests;
}

describe('jobstorm capacity --strict', () => {
  it('stops sending an operation the target serves to another method, as run --strict does', async () => {
    const adapted = await statusRequests(false);
    const strict = await statusRequests(true);
    // Adapted: every job polled by POST, about five reads each; strict: one refused read, then none.
    expect(adapted).toBeGreaterThan(strict + 30);
  }, 120_000);
});
