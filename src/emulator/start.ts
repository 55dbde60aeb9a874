import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/config-error.js';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { ManualClock } from '../core/manual-clock.js';
import { EmulatorCore } from './emulator-core.js';
import { EmulatorServer } from './http/server.js';
import { createWebhookPoster } from './http/webhook-poster.js';
import type { ProcessGroups } from './external/process-groups.js';
import { ProcessLauncher } from './external/process-launcher.js';
import { workerEnvironment } from './external/worker-env.js';
import type { WorkerProcess } from './external/worker-process.js';
import { resolveOptions, type EmulatorOptions } from './options.js';

/** What a running emulator gives its owner, in-process or in a worker thread alike. */
export interface EmulatorHandle {
  /** `http://HOST:PORT/v2/<first endpoint id>`. */
  url: string;
  /** `http://HOST:PORT/v1`. */
  managementUrl: string;
  /** `http://HOST:PORT/_emulator`. */
  adminUrl: string;
  apiKey: string;
  /** The emulator's clock (a ManualClock when `clock: 'manual'` in-process). */
  clock: Clock;
  /** Moves a manual clock forward by `ms` (through the admin API for a worker); resolves with emulator time. */
  advance(ms: number): Promise<number>;
  close(): Promise<void>;
}

/** Hooks for the worker-thread host; not part of the public options. */
export interface EmulatorHooks {
  onClockAdvance?: (clockNow: number) => void;
  /** Where the process group of each running worker process is kept, for an owner's forced exit. */
  processGroups?: ProcessGroups;
}

function pickClock(choice: 'real' | 'manual' | Clock): Clock {
  if (choice === 'real') return systemClock;
  if (choice === 'manual') return new ManualClock();
  return choice;
}

/** Starts the emulator on loopback (by default a free port); throws ConfigError on bad options. */
export async function startEmulator(
  options: EmulatorOptions = {},
  hooks: EmulatorHooks = {},
): Promise<EmulatorHandle> {
  const config = resolveOptions(options);
  const clock = pickClock(config.clock);
  const poster = createWebhookPoster();
  const core = new EmulatorCore(clock, config, poster.post);
  const onAdvance = hooks.onClockAdvance ?? (() => undefined);
  const server = new EmulatorServer(core, onAdvance);
  let address;
  try {
    address = await server.listen(config.port, config.host);
  } catch (err) {
    await core.close();
    await poster.close();
    throw err;
  }
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  const base = `http://${host}:${String(address.port)}`;
  if (config.workerProcess !== undefined) {
    try {
      await launchWorkers(core, config.workerProcess, base, hooks.processGroups);
    } catch (err) {
      await core.close();
      await server.close();
      await poster.close();
      throw err;
    }
  }
  let closed: Promise<void> | undefined;
  return {
    url: `${base}/v2/${encodeURIComponent(config.endpoints[0] ?? 'jobstorm')}`,
    managementUrl: `${base}/v1`,
    adminUrl: `${base}/_emulator`,
    apiKey: config.apiKey,
    clock,
    advance: (ms) => {
      if (!(clock instanceof ManualClock))
        return Promise.reject(
          new Error('the emulator clock is real; start it with clock "manual" to advance it'),
        );
      clock.advance(ms);
      onAdvance(clock.now());
      return Promise.resolve(core.now());
    },
    close: () => {
      closed ??= (async () => {
        await core.close();
        await server.close();
        await poster.close();
      })();
      return closed;
    },
  };
}

/** How long start-up waits for workersMin real workers to make their first request. */
const WARM_BOUND_MS = 60_000;

/**
 * Gives every external-workers endpoint a launcher of real worker processes (`--worker CMD`) and
 * waits until its workersMin have started (warm from the start, as simulated ones are).
 */
async function launchWorkers(
  core: EmulatorCore,
  spec: WorkerProcess,
  base: string,
  groups: ProcessGroups | undefined,
): Promise<void> {
  const served = [...core.endpoints.values()].filter((ep) => ep.settings.externalOnly);
  for (const ep of served) {
    const env = workerEnvironment(
      `${base}/v2/${encodeURIComponent(ep.id)}`,
      core.config.apiKey,
      core.config.workerPingIntervalMs,
    );
    const logDir = served.length > 1 ? join(spec.logDir, ep.id) : spec.logDir;
    const launcher = new ProcessLauncher(
      { ...spec, logDir },
      env,
      (id, code) => ep.external.exited(id, code),
      groups,
    );
    ep.external.attach(launcher);
  }
  await Promise.all(served.map((ep) => ep.external.whenWarm(WARM_BOUND_MS)));
  for (const ep of served) {
    const snap = ep.external.snapshot();
    const failed = snap.workers.find((w) => w.firstSeenAt < 0 && w.state === 'exited');
    if (ep.settings.workersMin === 0 || failed === undefined || snap.workers.some((w) => w.firstSeenAt >= 0))
      continue;
    const log = snap.processes.find((p) => p.workerId === failed.id)?.log ?? '';
    throw new ConfigError([
      {
        where: 'worker.command',
        message: `"${spec.command}" exited (code ${String(failed.exitCode)}) before its first request to the queue; its output (${log}): ${logTail(log)}`,
      },
    ]);
  }
}

/** The last lines a worker wrote, for an error message. */
function logTail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? '(nothing)' : text.slice(-400);
  } catch {
    return '(no log)';
  }
}
