import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import type { Summary } from '../../src/report/summary.js';

/*
 * The pipeline of deploy/ (CI matrix or Indexed Job), run locally: two `jobstorm run --shard i/2`
 * processes of the built bin against one emulator, `jobstorm merge` of their folders, and an
 * unsharded run of the same scenario. The merge must tell the same story as the unsharded run.
 */

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function jobstorm(args: readonly string[]): Promise<Exit> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, JOBSTORM_API_KEY: '', GITHUB_STEP_SUMMARY: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function summaryOf(dir: string): Promise<Summary> {
  return JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as Summary;
}

function requests(s: Summary, op: string): number {
  return s.operations[op]?.requests ?? 0;
}

/**
 * One flow (a weighted pick would differ between shards and the whole), 40 arrivals a second. Its
 * poll looks first a second after the submit, when the 100 ms job is long done: one poll a job,
 * however busy the machine that runs the shards and the whole at once (a poll as the job ends
 * counts one more or one fewer by chance). What the merge must match is then the split, not the load.
 */
const SCENARIO = `
name: sharded-pipeline
phases:
  - { duration: 1s, ramp: { from: 10, to: 40 } }
  - { duration: 4s, rate: 40 }
flows:
  - name: submit-and-poll
    steps:
      - run: { input: { sleep_ms: 100 } }
      - sleep: 1s
      - poll: { until: final, interval: 300ms, timeout: 20s }
thresholds:
  - "rate(failed) < 1%"
`;

describe('sharded pipeline: n shard processes against one emulator, then merge', () => {
  let emulator: EmulatorHandle | undefined;
  let dir = '';

  beforeAll(async () => {
    expect(existsSync(bin)).toBe(true);
    dir = await mkdtemp(join(tmpdir(), 'jobstorm-shards-'));
    await writeFile(join(dir, 'scenario.yaml'), SCENARIO);
    // Enough fixed workers that the load never queues, with the shards and the unsharded run all
    // under way at once (80 arrivals a second of 100 ms jobs): they then see the same service.
    emulator = await startEmulator({
      port: 0,
      workersMin: 20,
      workersMax: 20,
      coldStartMs: 0,
      requestsPerWorker: 100_000,
    });
  }, 180_000);

  afterAll(async () => {
    await emulator?.close();
  });

  it(
    'the merged report equals an unsharded run within the rate tolerance',
    { timeout: 120_000 },
    async () => {
      if (!emulator) throw new Error('no emulator');
      const target = ['--target', emulator.url, '--api-key', emulator.apiKey, '--quiet'];
      const scenario = join(dir, 'scenario.yaml');
      const shardDirs = [join(dir, 'shard-1'), join(dir, 'shard-2')];
      const whole = join(dir, 'whole');
      // The shards and the unsharded run side by side: three real processes that mostly wait.
      const [unsharded, ...shards] = await Promise.all([
        jobstorm(['run', scenario, ...target, '--out', whole]),
        ...shardDirs.map((out, i) =>
          jobstorm(['run', scenario, ...target, '--shard', `${String(i + 1)}/2`, '--out', out]),
        ),
      ]);
      for (const s of shards) expect(s.code, s.stderr).toBe(0);
      expect(unsharded.code, unsharded.stderr).toBe(0);
      const merged = join(dir, 'merged');
      const merge = await jobstorm(['merge', ...shardDirs, '--out', merged]);
      expect(merge.code, merge.stderr).toBe(0);

      const [m, u, s1, s2] = await Promise.all([
        summaryOf(merged),
        summaryOf(whole),
        summaryOf(shardDirs[0] ?? ''),
        summaryOf(shardDirs[1] ?? ''),
      ]);
      expect([s1.run.shard, s2.run.shard]).toEqual(['1/2', '2/2']);
      expect(m.run.shards).toEqual(['1/2', '2/2']);
      // Arrivals are split exactly (arrival k goes to shard k mod n): together, the whole schedule.
      const arrivals = (s: Summary): number => requests(s, 'run') + s.dropped.total;
      expect(arrivals(u)).toBeGreaterThanOrEqual(170);
      expect(arrivals(m)).toBe(arrivals(u));
      expect(Math.abs(arrivals(s1) - arrivals(s2))).toBeLessThanOrEqual(1);
      expect(arrivals(s1) + arrivals(s2)).toBe(arrivals(m));
      // Jobs: the same number submitted and completed, none lost.
      expect(m.jobs.submitted).toBe(u.jobs.submitted);
      expect(m.jobs.byState.COMPLETED).toBe(u.jobs.byState.COMPLETED);
      expect(m.jobs.lost + m.jobs.unfinished).toBe(0);
      // Polls depend on timing, so they agree within the rate tolerance, not exactly.
      for (const op of ['run', 'status']) {
        const a = requests(m, op);
        const b = requests(u, op);
        expect(
          Math.abs(a - b) / b,
          `${op}: merged ${String(a)} vs unsharded ${String(b)}`,
        ).toBeLessThanOrEqual(0.05);
      }
      // Each shard samples /health on its own, so the merge holds about n times the samples.
      expect(requests(m, 'health')).toBeGreaterThanOrEqual(requests(u, 'health'));
      // The same service answered both: the merged p50 is the same 100 ms job's, give or take the
      // emulator's timers running late on a loaded machine (10.05 ms apart seen beside a full suite).
      expect(
        Math.abs(m.jobs.executionTime.percentiles.p50 - u.jobs.executionTime.percentiles.p50),
      ).toBeLessThan(30);
      expect(m.thresholds.map((t) => [t.expression, t.ok])).toEqual([['rate(failed) < 1%', true]]);
      expect(await readFile(join(merged, 'junit.xml'), 'utf8')).toContain('rate(failed) &lt; 1%');
    },
  );
});
