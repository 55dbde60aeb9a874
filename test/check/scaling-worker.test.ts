import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRecordsFile } from '../../src/session/records-check.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { PROCESS_SCALE_UP_MS } from '../../src/emulator/emulator-scaling.js';
import type { Summary } from '../../src/report/summary.js';

/*
 * burst-scaling's shape with real worker processes (the standard-library Python worker): the
 * emulator's simulated cold start is 0, so every worker seen initializing is a process starting
 * up (each takes 1 s, WORKER_STARTUP_MS, as a model load would). The scaling checks judge it all
 * and find nothing, and the scaling figures show that start-up as the cold start.
 *
 * Sized for what the checks need, on a loaded machine too: lowPriority jobs alone in the queue for
 * the first reads (the burst waits 3 s), a burst that the one warm worker cannot take alone, and a
 * silence long enough that the backlog is done and quiet reads follow (on a busy two-core machine
 * the backlog is done 8 s into the run and the idle workers go by 11 s).
 */
const SCENARIO = `name: burst-scaling-worker
emulator: { coldStart: 0s }
worker:
  command: python3 test/worker/stdlib_worker.py
  env: { WORKER_CONCURRENCY: "1", WORKER_STARTUP_MS: "1000" }
  workersMin: 1
  workersMax: 4
  idleTimeout: 2s
  stopGrace: 3s
phases:
  - { name: arrivals, count: 16, rate: 16 }
  - { name: silence, duration: 11s, rate: 0 }
flows:
  - name: low-priority
    weight: 1
    steps:
      - run: { input: { sleep_ms: 1000 }, policy: { lowPriority: true } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
  - name: burst
    weight: 3
    steps:
      - sleep: 3s
      - run: { input: { sleep_ms: 500 } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
`;

const root = new URL('../../', import.meta.url).pathname;

/**
 * The built bin, as a user runs it: the emulator in its worker thread from compiled code (in-process
 * under vitest, that thread would first compile the emulator's sources with tsx, seconds of the run).
 * The worker processes and their time are real.
 */
function bin(argv: readonly string[]): Promise<{ code: number; stderr: string }> {
  // Nothing from the caller's environment may point the run away from the embedded emulator.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JOBSTORM_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'dist/cli/main.js'), ...argv],
      { cwd: root, env },
      (err, _out, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr });
      },
    );
  });
}

const IDS = ['scaling.low-priority', 'scaling.above-max', 'scaling.stuck', 'scaling.no-scale-down'];

describe('scaling checks with real workers (--worker)', () => {
  it('every scaling check judges real processes scaled for the burst, with the bound of a process start-up, and nothing fires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-scaling-worker-'));
    const file = join(dir, 'burst-scaling-worker.yaml');
    writeFileSync(file, SCENARIO);
    const out = join(dir, 'out');
    const exit = await bin(['run', file, '--out', out, '--record', '--quiet']);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    expect(exit.code, `${exit.stderr}\n${JSON.stringify(summary.violations).slice(0, 2000)}`).toBe(0);
    for (const id of IDS)
      expect(summary.coverage[id], `${id}: ${summary.checkNotes?.[id] ?? ''}`).toBeGreaterThan(0);
    const records = readFileSync(join(out, 'records.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JobstormRecord);
    const run = records[0];
    // The worker: section's settings, and the bound for a process start-up (not the simulated 0 s).
    expect(run?.type === 'run' ? run.scaling : undefined).toEqual({
      workersMin: 1,
      workersMax: 4,
      idleTimeoutMs: 2000,
      scaleUpWithinMs: PROCESS_SCALE_UP_MS,
      source: 'emulator',
    });
    // The burst was served by worker processes launched for it: with a simulated cold start of 0,
    // every scale-up the checks judged waited on a real process start-up.
    const pool = JSON.parse(readFileSync(join(out, 'workers.json'), 'utf8')) as { processes: unknown[] };
    expect(pool.processes.length).toBeGreaterThan(1);
    // The cold start the jobs saw is the processes' 1 s start-up: with the simulated cold start at
    // 0, jobs waited on initializing workers only because processes were starting (with
    // WORKER_STARTUP_MS 0 the same run measures coldStartMs 0).
    const figures = summary.scaling?.figures;
    expect(figures?.coldStartMs ?? 0, JSON.stringify(figures)).toBeGreaterThan(0);
    const offline = await checkRecordsFile(join(out, 'records.ndjson'));
    for (const id of IDS) expect(offline.coverage[id], id).toBe(summary.coverage[id]);
    expect(offline.violations).toEqual([]);
  }, 120_000);
});
