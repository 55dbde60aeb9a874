import type { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { ConfigError } from '../core/config-error.js';
import { spawnModuleWorker } from '../core/module-worker.js';
import type { ProcessGroups } from './external/process-groups.js';
import { resolveOptions, type EmulatorOptions } from './options.js';
import type { EmulatorHandle } from './start.js';
import { WorkerClockView } from './worker-clock.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.js';

/** How long close() waits for the worker to shut its server before terminating it. */
const CLOSE_GRACE_MS = 5000;

/**
 * Starts the emulator in a worker thread, so it does not share the load generator's event loop
 * (DESIGN "The emulator"). Same handle as startEmulator; the clock is a view of the worker's, and
 * `advance` goes through the admin API.
 *
 * From compiled code the worker runs the sibling worker-entry.js. From TypeScript sources (vitest,
 * tsx) there is no .js beside us, so the worker first registers tsx's loader and then imports
 * worker-entry.ts.
 */
export async function startEmulatorInWorker(
  options: EmulatorOptions = {},
  hooks: { processGroups?: ProcessGroups } = {},
): Promise<EmulatorHandle> {
  if (typeof options.clock === 'object') {
    throw new ConfigError([
      {
        where: 'clock',
        message: 'a Clock instance cannot cross into a worker thread; use "real" or "manual"',
      },
    ]);
  }
  const config = resolveOptions(options);
  const clockCell = new SharedArrayBuffer(8);
  const init: WorkerInit = {
    options,
    clockCell,
    ...(hooks.processGroups ? { groupsCell: hooks.processGroups.buffer } : {}),
  };
  const worker = spawn(init);
  // Worker processes get SIGTERM and their grace before SIGKILL; the thread must outlive that.
  const closeGrace = CLOSE_GRACE_MS + (config.workerProcess?.stopGraceMs ?? 0);
  const ready = await new Promise<Extract<FromWorker, { type: 'ready' }>>((resolve, reject) => {
    const onMessage = (m: FromWorker): void => {
      if (m.type === 'ready') {
        cleanup();
        resolve(m);
      } else if (m.type === 'error') {
        cleanup();
        reject(
          m.issues ? new ConfigError(m.issues) : new Error(`emulator worker failed to start: ${m.message}`),
        );
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`emulator worker exited with code ${String(code)} before it was ready`));
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
  const clock = new WorkerClockView(ready.manual, new Float64Array(clockCell), ready.timeOrigin);
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'time') clock.moved(m.now);
  });
  // An 'error' event without a listener would be thrown in the owner's thread: a dead emulator
  // must not take the load generator (and its records) with it. Requests then fail as data.
  worker.on('error', () => undefined);
  let closed: Promise<void> | undefined;
  return {
    url: ready.url,
    managementUrl: ready.managementUrl,
    adminUrl: ready.adminUrl,
    apiKey: ready.apiKey,
    clock,
    advance: async (ms) => {
      const res = await request(`${ready.adminUrl}/clock/advance`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ms }),
      });
      const body = (await res.body.json()) as { now?: number; error?: string };
      if (res.statusCode !== 200 || typeof body.now !== 'number')
        throw new Error(body.error ?? `advance failed with ${String(res.statusCode)}`);
      return body.now;
    },
    close: () => {
      closed ??= shutDown(worker, closeGrace);
      return closed;
    },
  };
}

function spawn(init: WorkerInit): Worker {
  return spawnModuleWorker(import.meta.url, './worker-entry', init);
}

function shutDown(worker: Worker, grace: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (worker.threadId === -1) {
      // Already gone (it died): nothing to close.
      resolve();
      return;
    }
    const timer = setTimeout(() => void worker.terminate(), grace);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage({ type: 'close' } satisfies ToWorker);
  });
}
