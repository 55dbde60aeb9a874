import { mergeConnectionWaits } from '../core/connection-wait.js';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../core/module-worker.js';
import type { JobstormRecord } from '../core/record.js';
import { CpuCell } from './cpu-cell.js';
import type { RunOptions, RunOutcome, Target } from './run-options.js';
import { newCounters } from './run-context.js';
import { runRecord } from './run-record.js';
import type { FromShard, ShardInit, ToShard } from './shard-protocol.js';

export interface ThreadedRunOptions extends RunOptions {
  workers: number;
  /** Starts one shard's thread: shard-worker.ts unless a test stands in one that fails. */
  spawnShard?: (init: ShardInit) => Worker;
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

async function runShards(
  o: ThreadedRunOptions,
  shardTarget: Target,
  cpu: CpuCell | undefined,
): Promise<RunOutcome> {
  const shards = Array.from({ length: o.workers }, (_, i) => {
    const init: ShardInit = {
      scenario: o.scenario,
      target: shardTarget,
      runId: o.runId,
      shard: { index: i + 1, count: o.workers },
      gracefulStopMs: o.gracefulStopMs,
      drainMs: o.drainMs,
      ...(cpu ? { cpuCell: cpu.buffer } : {}),
    };
    return runShard(init, o);
  });
  try {
    await Promise.all(shards.map((s) => s.ready));
  } catch (err) {
    for (const s of shards) void s.worker.terminate();
    await Promise.allSettled(shards.map((s) => s.done));
    throw err;
  }
  const epochZeroMs = o.clock.epochNow() + START_MARGIN_MS;
  const startedAtMs = Math.round(epochZeroMs);
  // One record for the whole run: the shards' own run records are not forwarded (see runShard).
  o.onRecord(runRecord(o, startedAtMs, undefined));
  for (const s of shards) s.worker.postMessage({ type: 'start', epochZeroMs } satisfies ToShard);
  const { outcomes, failure } = await finishShards(shards);
  const counters = newCounters();
  for (const x of outcomes) {
    for (const key of ['arrivals', 'dropped', 'inFlight', 'requests', 'throttled', 'errors'] as const)
      counters[key] += x.counters[key];
  }
  // Math.max of nothing is -Infinity: when every shard failed, the figures are zeros.
  const most = (of: (x: RunOutcome) => number): number => Math.max(0, ...outcomes.map(of));
  return {
    runId: o.runId,
    startedAtMs,
    durationMs:
      outcomes.length > 0 ? most((x) => x.durationMs) : Math.max(0, o.clock.epochNow() - startedAtMs),
    interrupted: failure !== undefined || outcomes.some((x) => x.interrupted),
    targetUnreachable: outcomes.length > 0 && outcomes.every((x) => x.targetUnreachable),
    counters,
    latenessP99Ms: most((x) => x.latenessP99Ms),
    // Each shard has its own event loop: the busiest one is the run's.
    generator: {
      latenessP99Ms: most((x) => x.generator.latenessP99Ms),
      loopDelayP99Ms: most((x) => x.generator.loopDelayP99Ms),
      busyMax: most((x) => x.generator.busyMax),
    },
    ...mergedConnectionWait(outcomes),
    ...traceErrorOf(outcomes),
    failure,
  };
}

/** Every shard reads the same trace: its first bad row is the same for all. */
function traceErrorOf(outcomes: readonly RunOutcome[]): Pick<RunOutcome, 'traceError'> {
  const found = outcomes.find((x) => x.traceError !== undefined)?.traceError;
  return found === undefined ? {} : { traceError: found };
}

function mergedConnectionWait(outcomes: readonly RunOutcome[]): Pick<RunOutcome, 'connectionWait'> {
  const wait = mergeConnectionWaits(outcomes.map((x) => x.connectionWait));
  return wait ? { connectionWait: wait } : {};
}

/**
 * Every shard's outcome. A shard that fails mid-run (a bug, memory) does not take the run with
 * it: the others are told to stop, as at Ctrl-C, and what they and it measured until then still
 * makes the report, marked with the failure (`nothing is lost`).
 */
async function finishShards(shards: readonly Shard[]): Promise<{ outcomes: RunOutcome[]; failure?: string }> {
  let failure: string | undefined;
  const settled = await Promise.allSettled(
    shards.map((s) =>
      s.done.catch((err: unknown) => {
        // Ended or not, a failed shard has nothing more to give; its thread must not hold the process.
        void s.worker.terminate();
        if (failure === undefined) {
          failure = firstLine(err);
          for (const other of shards)
            if (other !== s) other.worker.postMessage({ type: 'interrupt' } satisfies ToShard);
        }
        throw err;
      }),
    ),
  );
  const outcomes = settled.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : []));
  return { outcomes, failure };
}

/** "shard 2/2 failed: TypeError: x is undefined", without the stack. */
function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0] ?? text;
}

interface Shard {
  worker: Worker;
  /** Set up and waiting for `start`. */
  ready: Promise<void>;
  done: Promise<RunOutcome>;
}

/** One shard's thread, running shard-worker.ts. */
export function spawnShardWorker(init: ShardInit): Worker {
  return spawnModuleWorker(import.meta.url, './shard-worker', init);
}

function runShard(init: ShardInit, o: ThreadedRunOptions): Shard {
  const worker = (o.spawnShard ?? spawnShardWorker)(init);
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
    worker.on('error', (err) => fail(new Error(`${name} failed: ${err.message}`)));
    worker.on('exit', () => {
      o.interrupt?.removeEventListener('abort', onInterrupt);
      if (outcome) resolve(outcome);
      else fail(new Error(`${name} exited before it finished`));
    });
  });
  done.catch(() => undefined);
  return { worker, ready, done };
}
