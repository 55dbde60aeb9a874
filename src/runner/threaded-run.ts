import { spawnModuleWorker } from '../core/module-worker.js';
import { RECORD_VERSION, type JobstormRecord, type RunRecord } from '../core/record.js';
import type { RunOptions, RunOutcome, Target } from './run-options.js';
import { newCounters } from './run-context.js';
import type { FromShard, ShardInit } from './shard-protocol.js';

export interface ThreadedRunOptions extends RunOptions {
  workers: number;
}

/**
 * `--workers N`: N worker threads, each running shard i/N of the scenario, their records combined
 * here in one stream (one run record, one time base), so checks and metrics see one run.
 */
export async function runScenarioThreaded(o: ThreadedRunOptions): Promise<RunOutcome> {
  const epochZeroMs = performance.timeOrigin + performance.now();
  const startedAtMs = Math.round(epochZeroMs);
  const run: RunRecord = { v: RECORD_VERSION, type: 'run', runId: o.runId, scenario: o.scenario.name, target: o.target.baseUrl, startedAtMs, ownsEndpoint: o.target.ownsEndpoint };
  if (o.target.requestsPerWorker !== undefined) run.requestsPerWorker = o.target.requestsPerWorker;
  if (o.target.clock === 'manual') run.targetClock = 'manual';
  o.onRecord(run);
  // The emulator's clock control is a function: it cannot cross into a thread (and advance steps
  // are refused with --workers).
  const shardTarget: Target = { ...o.target };
  delete shardTarget.emulator;
  const outcomes = await Promise.all(
    Array.from({ length: o.workers }, (_, i) => {
      const init: ShardInit = { scenario: o.scenario, target: shardTarget, runId: o.runId, shard: { index: i + 1, count: o.workers }, epochZeroMs, ...(o.gracefulStopMs === undefined ? {} : { gracefulStopMs: o.gracefulStopMs }), ...(o.drainMs === undefined ? {} : { drainMs: o.drainMs }) };
      return runShard(init, o);
    }),
  );
  const counters = newCounters();
  for (const x of outcomes) {
    for (const key of ['arrivals', 'dropped', 'inFlight', 'requests', 'throttled', 'errors'] as const) counters[key] += x.counters[key];
    for (const [s, n] of Object.entries(x.counters.jobs)) counters.jobs[s] = (counters.jobs[s] ?? 0) + n;
  }
  return {
    runId: o.runId,
    startedAtMs,
    durationMs: Math.max(...outcomes.map((x) => x.durationMs)),
    interrupted: outcomes.some((x) => x.interrupted),
    targetUnreachable: outcomes.every((x) => x.targetUnreachable),
    counters,
    latenessP99Ms: Math.max(...outcomes.map((x) => x.latenessP99Ms)),
  };
}

function runShard(init: ShardInit, o: ThreadedRunOptions): Promise<RunOutcome> {
  const worker = spawnModuleWorker(import.meta.url, './shard-worker', init);
  const onInterrupt = (): void => worker.postMessage({ type: 'interrupt' });
  o.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  return new Promise<RunOutcome>((resolve, reject) => {
    let outcome: RunOutcome | undefined;
    worker.on('message', (m: FromShard) => {
      if (m.type === 'records') {
        for (const r of m.records as JobstormRecord[]) if (r.type !== 'run') o.onRecord(r);
      } else if (m.type === 'done') {
        outcome = m.outcome;
      } else {
        reject(new Error(`shard ${String(init.shard.index)}/${String(init.shard.count)} failed: ${m.message}`));
      }
    });
    worker.on('error', reject);
    worker.on('exit', () => {
      o.interrupt?.removeEventListener('abort', onInterrupt);
      if (outcome) resolve(outcome);
      else reject(new Error(`shard ${String(init.shard.index)}/${String(init.shard.count)} exited before it finished`));
    });
  });
}
