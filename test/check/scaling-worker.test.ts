import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRecordsFile } from '../../src/session/records-check.js';
import { runCli } from '../../src/cli/cli.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { PROCESS_SCALE_UP_MS } from '../../src/emulator/emulator-scaling.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';

/*
 * burst-scaling's shape with real worker processes (the standard-library Python worker): the
 * emulator's simulated cold start is 0, so every worker seen initializing is a process starting
 * up (each takes 2 s, WORKER_STARTUP_MS, as a model load would). The scaling checks judge it all
 * and find nothing, and the scaling figures show that start-up as the cold start.
 */
const SCENARIO = `name: burst-scaling-worker
emulator: { coldStart: 0s }
worker:
  command: python3 test/worker/stdlib_worker.py
  env: { WORKER_CONCURRENCY: "1", WORKER_STARTUP_MS: "2000" }
  workersMin: 1
  workersMax: 4
  idleTimeout: 2s
  stopGrace: 3s
phases:
  - { name: arrivals, count: 32, rate: 16 }
  - { name: silence, duration: 16s, rate: 0 }
flows:
  - name: low-priority
    weight: 1
    steps:
      - run: { input: { sleep_ms: 1000 }, policy: { lowPriority: true } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
  - name: burst
    weight: 3
    steps:
      - sleep: 4s
      - run: { input: { sleep_ms: 1000 } }
      - poll: { until: final, interval: 500ms, timeout: 30s }
`;

const IDS = ['scaling.low-priority', 'scaling.above-max', 'scaling.stuck', 'scaling.no-scale-down'];

describe('scaling checks with real workers (--worker)', () => {
  it('every scaling check judges real processes scaled for the burst, with the bound of a process start-up, and nothing fires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-scaling-worker-'));
    const file = join(dir, 'burst-scaling-worker.yaml');
    writeFileSync(file, SCENARIO);
    const out = join(dir, 'out');
    const io = captureIo({ PATH: process.env.PATH });
    const code = await runCli(['run', file, '--out', out, '--record', '--quiet'], io);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    expect(code, `${io.stderr.join('\n')}\n${JSON.stringify(summary.violations).slice(0, 2000)}`).toBe(0);
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
    // The cold start the jobs saw is the processes' 2 s start-up: with the simulated cold start at
    // 0, jobs waited on initializing workers only because processes were starting (with
    // WORKER_STARTUP_MS 0 the same run measures coldStartMs 0).
    const figures = summary.scaling?.figures;
    expect(figures?.coldStartMs ?? 0, JSON.stringify(figures)).toBeGreaterThan(0);
    const offline = await checkRecordsFile(join(out, 'records.ndjson'));
    for (const id of IDS) expect(offline.coverage[id], id).toBe(summary.coverage[id]);
    expect(offline.violations).toEqual([]);
  }, 120_000);
});
