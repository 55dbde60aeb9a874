import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../core/module-worker.js';
import { RECORD_VERSION, type JobstormRecord, type RunRecord } from '../core/record.js';
import { CpuCell } from './cpu-cell.js';
import type { RunOptions, RunOutcome, Target } from './run-options.js';
import { newCounters } from './run-context.js';
import type { FromShard, ShardInit, ToShard } from './shard-protocol.js';

export interface ThreadedRunOptions extends RunOptions {
  workers: number;
}

/** Between the go and time 0: the `start` message must reach every shard first. */
const START_MARGIN_MS = 5;

/**
 * `--workers N`: N worker threads, each running shard i/N of the scenario, their records combined
 * here in one stream (one run record, one time base), so checks and metrics see one run. Time 0
 * is set once every shard is up: a thread takes hundreds of milliseconds to start, and arrivals
 * intended before it could send would all go out late at once.
 */
export async function runScenarioThreaded(o: ThreadedRunOptions): Promise<RunOutcome> {
  // The emulator's clock control is a function: it cannot cross into a thread (and advance steps
  // are refused with --workers).
  const shardTarget: Target = { ...o.target };
  delete shardTarget.emulator;
  // The process's CPU, for each shard's watch to tell starved from saturated (see CpuCell).
  const cpu = o.cpu ? CpuCell.fed(o.cpu) : undefined;
  try {
    return await runShards(o, shardTarget, cpu?.cell);
  } finally {
    cpu?.stop();
  }
}

async function runShards(o: ThreadedRunOptions, shardTarget: Target, cpu: CpuCell | undefined): Promise<RunOutcome> {
  const shards = Array.from({ length: o.workers }, (_, i) => {
    const init: ShardInit = { scenario: o.scenario, target: shardTarget, runId: o.runId, shard: { index: i + 1, count: o.workers }, ...(o.gracefulStopMs === undefined ? {} : { gracefulStopMs: o.gracefulStopMs }), ...(o.drainMs === undefined ? {} : { drainMs: o.drainMs }), ...(cpu ? { cpuCell: cpu.buffer } : {}) };
    return runShard(init, o);
  });
  try {
    await Promise.all(shards.map((s) => s.ready));
  } catch (err) {
    for (const s of shards) void s.worker.terminate();
    await Promise.allSettled(shards.map((s) => s.done));
    throw err;
  }
  const epochZeroMs = performance.timeOrigin + performance.now() + START_MARGIN_MS;
  const startedAtMs = Math.round(epochZeroMs);
  const run: RunRecord = { v: RECORD_VERSION, type: 'run', runId: o.runId, scenario: o.scenario.name, target: o.target.baseUrl, startedAtMs, ownsEndpoint: o.target.ownsEndpoint };
  if (o.target.requestsPerWorker !== undefined) run.requestsPerWorker = o.target.requestsPerWorker;
  if (o.target.clock === 'manual') run.targetClock = 'manual';
  o.onRecord(run);
  for (const s of shards) s.worker.postMessage({ type: 'start', epochZeroMs } satisfies ToShard);
  const outcomes = await Promise.all(shards.map((s) => s.done));
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
    // Each shard has its own event loop: the busiest one is the run's.
    generator: {
      latenessP99Ms: Math.max(...outcomes.map((x) => x.generator.latenessP99Ms)),
      loopDelayP99Ms: Math.max(...outcomes.map((x) => x.generator.loopDelayP99Ms)),
      busyMax: Math.max(...outcomes.map((x) => x.generator.busyMax)),
    },
  };
}

interface Shard {
  worker: Worker;
  /** Set up and waiting for `start`. */
  ready: Promise<void>;
  done: Promise<RunOutcome>;
}

function runShard(init: ShardInit, o: ThreadedRunOptions): Shard {
  const worker = spawnModuleWorker(import.meta.url, './shard-worker', init);
  const name = `shard ${String(init.shard.index)}/${String(init.shard.count)}`;
  const onInterrupt = (): void => worker.postMessage({ type: 'interrupt' } satisfies ToShard);
  o.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  let isReady: () => void = () => undefined;
  let notReady: (err: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    isReady = resolve;
    notReady = reject;
  });
  // A failure before `ready` is reported through `ready`; `done` then only settles.
  ready.catch(() => undefined);
  const done = new Promise<RunOutcome>((resolve, reject) => {
    let outcome: RunOutcome | undefined;
    const fail = (err: Error): void => {
      notReady(err);
      reject(err);
    };
    worker.on('message', (m: FromShard) => {
      if (m.type === 'ready') isReady();
      else if (m.type === 'records') {
        for (const r of m.records as JobstormRecord[]) if (r.type !== 'run') o.onRecord(r);
      } else if (m.type === 'done') outcome = m.outcome;
      else if (m.type === 'warning') o.onGeneratorLimited?.(`${name}: ${m.message}`);
      else fail(new Error(`${name} failed: ${m.message}`));
    });
    worker.on('error', fail);
    worker.on('exit', () => {
      o.interrupt?.removeEventListener('abort', onInterrupt);
      if (outcome) resolve(outcome);
      else fail(new Error(`${name} exited before it finished`));
    });
  });
  done.catch(() => undefined);
  return { worker, ready, done };
}
