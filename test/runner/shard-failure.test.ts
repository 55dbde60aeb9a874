import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { buildSummary } from '../../src/report/summary-builder.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { summarySchema } from '../../src/report/summary-schema.js';
import type { ShardInit } from '../../src/runner/shard-protocol.js';
import { runScenarioThreaded, spawnShardWorker } from '../../src/runner/threaded-run.js';
import { emulatorTarget, exchanges, inlineScenario } from './helpers.js';
import { systemClock } from '../../src/core/clock.js';
import { FoldedMetrics } from '../helpers/folded.js';

/*
 * A --workers thread that fails mid-run (a bug, memory) used to take the whole run with it: the
 * runner threw, the other threads kept sending, and no report was written. Now the others are
 * stopped as at Ctrl-C and the run ends with what every thread measured, marked with the failure.
 */

let emulator: EmulatorHandle | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** A shard that starts like any other, then throws 400 ms into the run. */
function failingShard(): Worker {
  // Real time: a worker thread's own timer; the threads, not a clock, are what this test is about.
  const code = [
    "const { parentPort } = require('node:worker_threads');",
    "parentPort.on('message', (m) => { if (m.type === 'start') setTimeout(() => { throw new Error('boom in a shard'); }, 400); });",
    "parentPort.postMessage({ type: 'ready' });",
  ].join('\n');
  return new Worker(code, { eval: true });
}

describe('a --workers thread that fails mid-run', () => {
  it('stops the other threads at once and ends with their records and the failure, not a throw', async () => {
    const started = await emulatorTarget();
    emulator = started.emulator;
    const scenario = inlineScenario(`
name: shard-failure
phases: [{ duration: 20s, rate: 40 }]
flows:
  - name: submit-and-poll
    steps:
      - run: { input: { sleep_ms: 50 } }
      - poll: { until: final, interval: 100ms, timeout: 10s }
`);
    const records: JobstormRecord[] = [];
    // Real time: the shards are worker threads, each on the system clock of its own thread.
    const outcome = await runScenarioThreaded({
      clock: systemClock,
      scenario,
      target: started.target,
      runId: 'shard-failure',
      workers: 2,
      drainMs: 1000,
      onRecord: (r) => records.push(r),
      spawnShard: (init: ShardInit) => (init.shard.index === 2 ? failingShard() : spawnShardWorker(init)),
    });
    expect(outcome.failure).toBe('shard 2/2 failed: boom in a shard');
    expect(outcome.interrupted).toBe(true);
    // Stopped when the shard failed, not after the scenario's 20 s, by the run's own measure of its length.
    expect(outcome.durationMs).toBeLessThan(10_000);
    const sent = exchanges(records);
    expect(sent.length).toBeGreaterThan(0);
    expect(outcome.counters.requests).toBe(sent.length);

    // The report of such a run: interrupted, saying which thread failed and why, in every form.
    const run = records.find((r): r is RunRecord => r.type === 'run');
    if (!run) throw new Error('no run record');
    const metrics = new FoldedMetrics();
    for (const r of records) metrics.add(r);
    const summary = buildSummary({
      run,
      metrics,
      durationMs: outcome.durationMs,
      end: 'shard-failed',
      failure: outcome.failure,
      coverage: { 'schema.run': 1 },
    });
    expect(summary.run.end).toBe('shard-failed');
    expect(summary.verdict.status).toBe('interrupted');
    expect(summary.verdict.reasons[0]).toBe(
      'a worker thread failed (shard 2/2 failed: boom in a shard), so the others were stopped: results are partial',
    );
    const read = summarySchema.parse(JSON.parse(JSON.stringify(summary)));
    expect(read.verdict).toEqual(summary.verdict);
    // A merge with a completed shard is as partial as this one, and keeps why.
    const merged = mergeSummaries([
      { ...summary, run: { ...summary.run, shard: '1/2' } },
      { ...summary, run: { ...summary.run, shard: '2/2', end: 'completed', failure: undefined } },
    ]);
    expect(merged.run.end).toBe('shard-failed');
    expect(merged.run.failure).toBe('shard 2/2 failed: boom in a shard');
  }, 60_000);
});
