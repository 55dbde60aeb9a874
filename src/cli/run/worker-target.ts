import { join } from 'node:path';
import type { ConfigIssue } from '../../core/config-error.js';
import { ProcessGroups } from '../../emulator/external/process-groups.js';
import type { EmulatorHandle, EmulatorOptions, ExternalPoolSnapshot } from '../../emulator/index.js';
import type { Scenario, WorkerSpec } from '../../scenario/index.js';
import { onForcedExit } from './forced-exit.js';

/*
 * `jobstorm run --worker CMD` and a scenario's `worker:`: the embedded emulator serves an endpoint
 * whose autoscaler starts and stops these real worker processes. This is where our own process's
 * environment is handed to them (only src/cli reads it).
 */

/** The worker processes of this run: the flag's command over the scenario's section, or none. */
export function workerSpecFor(
  scenario: Scenario,
  flag: string | undefined,
  issues: ConfigIssue[],
  hasTarget: boolean,
): WorkerSpec | undefined {
  if (flag !== undefined && flag.trim() === '')
    issues.push({
      where: '--worker',
      message: 'expected a command that starts one worker, e.g. --worker "python3 handler.py"',
    });
  const spec =
    flag !== undefined && flag.trim() !== ''
      ? { ...(scenario.worker ?? defaults(scenario)), command: flag }
      : scenario.worker;
  if (spec !== undefined && hasTarget)
    issues.push({
      where: flag !== undefined ? '--worker' : `${scenario.source}: worker`,
      message: 'your worker runs behind the embedded emulator; it cannot be combined with --target',
    });
  if (spec !== undefined && scenario.emulator.clock === 'manual')
    issues.push({ where: '--worker', message: 'real workers need emulator.clock: real' });
  return spec;
}

function defaults(scenario: Scenario): WorkerSpec {
  const e = scenario.emulator;
  return {
    command: '',
    env: {},
    workersMin: e.workersMin,
    workersMax: e.workersMax,
    idleTimeoutMs: e.idleTimeoutMs,
    stopGraceMs: 10_000,
  };
}

/** Emulator options for an endpoint served by these worker processes; logs go to `<out>/workers/`. */
export function workerEmulatorOptions(
  spec: WorkerSpec,
  env: Readonly<Record<string, string | undefined>>,
  out: string,
): EmulatorOptions {
  const inherited = Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('RUNPOD_'),
    ),
  );
  return {
    externalWorkers: true,
    workersMin: spec.workersMin,
    workersMax: spec.workersMax,
    idleTimeout: Math.max(0.001, spec.idleTimeoutMs / 1000),
    workerProcess: {
      command: spec.command,
      env: { ...inherited, ...spec.env },
      logDir: join(out, 'workers'),
      stopGraceMs: spec.stopGraceMs,
    },
  };
}

/** The table the emulator keeps its worker processes' groups in, and the guard that uses it. */
export interface WorkerProcessGuard {
  groups: ProcessGroups;
  /** Call once the emulator has closed (it stopped its processes itself). */
  release: () => void;
}

/**
 * Your worker processes run detached, in process groups of their own, so nothing else would stop
 * them when jobstorm quits at once (a second Ctrl-C): from their start (warm-up included) until
 * the emulator has closed, that exit kills every group still running, synchronously.
 */
export function guardWorkerProcesses(): WorkerProcessGuard {
  const groups = new ProcessGroups();
  const release = onForcedExit(() => {
    // First: no process may start after this (the emulator's thread would replace the killed ones).
    groups.close();
    for (const pgid of groups.live()) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  return { groups, release };
}

/** The endpoint's real workers as the emulator saw them, read before it closes. */
export async function readWorkers(emulator: EmulatorHandle): Promise<ExternalPoolSnapshot | undefined> {
  const id = emulator.url.slice(emulator.url.lastIndexOf('/') + 1);
  try {
    // Loaded here: only a run with its own worker reads this, and undici's index is slow to load.
    const { request } = await import('undici');
    const res = await request(`${emulator.adminUrl}/endpoints/${id}`, {
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    const body = (await res.body.json()) as { externalWorkers?: ExternalPoolSnapshot };
    return body.externalWorkers;
  } catch {
    return undefined;
  }
}

/** Your worker processes' figures, read from the emulator just before it closes (`beforeClose`). */
export class WorkerFigures {
  stats: ExternalPoolSnapshot | undefined;
  readonly read = async (emulator: EmulatorHandle): Promise<void> => {
    this.stats = await readWorkers(emulator);
  };
}
