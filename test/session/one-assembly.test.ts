import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCapacity } from '../../src/capacity/capacity-search.js';
import { runCli } from '../../src/cli/cli.js';
import { systemClock } from '../../src/core/clock.js';
import { ExitCode } from '../../src/core/exit-code.js';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { reachTarget } from '../../src/library/run-target.js';
import { runJobstorm } from '../../src/library/run-jobstorm.js';
import { loadScenario } from '../../src/scenario/scenario-loader.js';
import { captureIo } from '../helpers/cli-io.js';

/*
 * Issue 46: the run is assembled once, so every entry (the CLI's `run`, `runJobstorm`, a capacity
 * step, `--workers 2`) writes the same run record for the same scenario and settings. Before,
 * the threaded run built its own and dropped `strict` and `exclusiveEndpoint`.
 */

const SCENARIO = `name: one-assembly
phases:
  - { duration: 1s, rate: 4 }
flows:
  - name: health
    steps:
      - health: {}
`;
/** What `--strict` makes of the scenario above, for the entries that take no flags. */
const STRICT = `${SCENARIO}target:
  adapt: false
`;

let dir = '';
let plain = '';
let strict = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-assembly-'));
  plain = join(dir, 'plain.yaml');
  strict = join(dir, 'strict.yaml');
  await writeFile(plain, SCENARIO);
  await writeFile(strict, STRICT);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The run record with what differs from run to run left out: its id, its start, the emulator's port. */
function comparable(run: RunRecord | undefined): Omit<RunRecord, 'runId' | 'startedAtMs' | 'target'> {
  expect(run).toBeDefined();
  const { runId, startedAtMs, target, ...rest } = run as RunRecord;
  expect(runId.length).toBeGreaterThan(0);
  expect(startedAtMs).toBeGreaterThan(0);
  expect(target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/[^/]+$/);
  return rest;
}

const firstRun = (records: readonly JobstormRecord[]): RunRecord | undefined =>
  records.find((r): r is RunRecord => r.type === 'run');

/** `jobstorm run <scenario> --strict --exclusive-endpoint`, in-process; its run record from records.ndjson. */
async function viaCli(extra: readonly string[]): Promise<RunRecord | undefined> {
  const out = await mkdtemp(join(dir, 'out-'));
  const io = captureIo();
  const args = ['run', plain, '--strict', '--exclusive-endpoint', '--record', '--quiet', '--out', out];
  const code = await runCli([...args, ...extra], io);
  expect(code, io.stderr.join('\n')).toBe(ExitCode.Ok);
  const text = await readFile(join(out, 'records.ndjson'), 'utf8');
  const records = text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JobstormRecord);
  expect(records.filter((r) => r.type === 'run')).toHaveLength(1);
  return firstRun(records);
}

async function viaLibrary(): Promise<RunRecord | undefined> {
  const records: JobstormRecord[] = [];
  const run = await runJobstorm({
    scenarioFile: strict,
    exclusiveEndpoint: true,
    onRecord: (r) => records.push(r),
  });
  expect(run.exitCode, run.summary.verdict.reasons.join('; ')).toBe(ExitCode.Ok);
  return firstRun(records);
}

/** A capacity search of one step (start = max), against the target reached as the CLI reaches it. */
async function viaCapacityStep(): Promise<RunRecord | undefined> {
  const scenario = await loadScenario(strict);
  const reached = await reachTarget(scenario, { exclusiveEndpoint: true });
  const records: JobstormRecord[] = [];
  try {
    const report = await findCapacity({
      scenario,
      target: reached.target,
      // The entries under test run the real CLI and threads on real time; so does this one.
      clock: systemClock,
      slo: [],
      steps: { start: 4, max: 4, stepDurationMs: 1000, warmupMs: 0 },
      mode: 'step',
      settleTimeoutMs: 2000,
      onRecord: (r) => records.push(r),
    });
    expect(report.steps).toHaveLength(1);
  } finally {
    await reached.close();
  }
  return firstRun(records);
}

describe('one assembly for every entry (issue 46)', () => {
  it('writes the same run record, strict and exclusive, from the CLI, the library, a capacity step and --workers 2', async () => {
    const cli = comparable(await viaCli([]));
    expect(cli).toMatchObject({
      type: 'run',
      scenario: 'one-assembly',
      ownsEndpoint: true,
      exclusiveEndpoint: true,
      strict: true,
    });
    expect(comparable(await viaLibrary())).toEqual(cli);
    expect(comparable(await viaCapacityStep())).toEqual(cli);
    expect(comparable(await viaCli(['--workers', '2']))).toEqual(cli);
  }, 120_000);
});
