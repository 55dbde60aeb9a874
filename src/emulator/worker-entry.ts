import { parentPort, workerData } from 'node:worker_threads';
import { ConfigError } from '../core/config-error.js';
import { ManualClock } from '../core/manual-clock.js';
import type { EmulatorOptions } from './options.js';
import { ProcessGroups } from './external/process-groups.js';
import { startEmulator } from './start.js';
import type { FromWorker, WorkerInit } from './worker-protocol.js';

/*
 * Entry of the emulator's worker thread (see in-worker.ts): starts the emulator with the options
 * it was given, publishes a manual clock's time into shared memory, closes on request.
 */
const port = parentPort;
if (port === null) throw new Error('worker-entry.ts runs only as a worker thread');
const init = workerData as WorkerInit;
const cell = new Float64Array(init.clockCell);
const send = (m: FromWorker): void => port.postMessage(m);

try {
  const handle = await startEmulator(init.options as EmulatorOptions, {
    onClockAdvance: (now) => {
      cell[0] = now;
      send({ type: 'time', now });
    },
    ...(init.groupsCell ? { processGroups: new ProcessGroups(init.groupsCell) } : {}),
  });
  cell[0] = handle.clock.now();
  port.on('message', () => {
    // The only message is 'close'.
    void handle.close().then(() => {
      send({ type: 'closed' });
      port.close();
    });
  });
  send({
    type: 'ready',
    url: handle.url,
    managementUrl: handle.managementUrl,
    adminUrl: handle.adminUrl,
    apiKey: handle.apiKey,
    manual: handle.clock instanceof ManualClock,
    timeOrigin: performance.timeOrigin,
  });
} catch (err) {
  send({
    type: 'error',
    message: err instanceof Error ? err.message : String(err),
    issues: err instanceof ConfigError ? [...err.issues] : undefined,
  });
  port.close();
}
