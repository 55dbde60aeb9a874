import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../core/clock.js';
import type { JobstormRecord } from '../core/record.js';
import { CpuCell } from './cpu-cell.js';
import { runScenario } from './runner.js';
import type { FromShard, ShardInit, ToShard } from './shard-protocol.js';

/*
 * One shard of a `--workers N` run. Records go to the main thread in batches: one message per
 * record would cost more than the request it describes.
 */
const port = parentPort;
if (!port) throw new Error('shard-worker runs only as a worker thread');
const init = workerData as ShardInit;
const interrupt = new AbortController();
let onStart: (epochZeroMs: number) => void = () => undefined;
port.on('message', (m: ToShard) => {
  if (m.type === 'start') onStart(m.epochZeroMs);
  else interrupt.abort(new Error(m.type));
});

let batch: JobstormRecord[] = [];
const flush = (): void => {
  if (batch.length === 0) return;
  port.postMessage({ type: 'records', records: batch } satisfies FromShard);
  batch = [];
};
const timer = setInterval(flush, 50);

runScenario({
  scenario: init.scenario,
  target: init.target,
  runId: init.runId,
  // A thread's own entry: a clock (functions) cannot cross into it, and shards of one run meet on
  // the epoch time 0 the main thread sends, so each reads the system clock of its own thread.
  clock: systemClock,
  shard: init.shard,
  startAt: () =>
    new Promise<number>((resolve) => {
      onStart = resolve;
      port.postMessage({ type: 'ready' } satisfies FromShard);
    }),
  interrupt: interrupt.signal,
  gracefulStopMs: init.gracefulStopMs,
  drainMs: init.drainMs,
  onGeneratorLimited: (message) => port.postMessage({ type: 'warning', message } satisfies FromShard),
  ...(init.cpuCell ? { cpu: new CpuCell(init.cpuCell).reader(init.shard.count) } : {}),
  onRecord: (r) => {
    batch.push(r);
    if (batch.length >= 512) flush();
  },
})
  .then((outcome) => {
    clearInterval(timer);
    flush();
    port.postMessage({ type: 'done', outcome } satisfies FromShard);
    port.close();
  })
  .catch((err: unknown) => {
    clearInterval(timer);
    flush();
    port.postMessage({
      type: 'error',
      message: err instanceof Error ? (err.stack ?? err.message) : String(err),
    } satisfies FromShard);
    port.close();
  });
