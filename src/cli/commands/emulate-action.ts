import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import {
  DEFAULT_WORKER_PING_INTERVAL_MS,
  exportBlock,
  PROFILES,
  startEmulator,
  workerEnvironment,
  type EmulatorHandle,
  type EmulatorOptions,
} from '../../emulator/index.js';
import type { CliIo, JobstormCommand } from '../command.js';
import type { EmulateArgs } from './emulate-args.js';

/** Option keys of startEmulator → the flag a user typed, so errors name what they can fix. */
const FLAGS: Record<string, string> = {
  host: '--host',
  port: '--port',
  apiKey: '--api-key',
  endpoints: '--endpoint',
  workersMin: '--workers-min',
  workersMax: '--workers-max',
  requestsPerWorker: '--requests-per-worker',
  profile: '--profile',
  clock: '--clock',
  faults: '--fault',
  streamShape: '--stream-shape',
  externalWorkers: '--external-workers',
};

function asFlags(err: ConfigError): ConfigError {
  return new ConfigError(
    err.issues.map((i): ConfigIssue => {
      const key = i.where.split('.')[0] ?? i.where;
      return { where: FLAGS[key] ?? i.where, message: i.message };
    }),
  );
}

/** A profile name, or a JSON/YAML file holding a profile object. */
async function loadProfile(value: string): Promise<unknown> {
  if (Object.hasOwn(PROFILES, value)) return value;
  let text: string;
  try {
    text = await readFile(value, 'utf8');
  } catch {
    throw new ConfigError([
      {
        where: '--profile',
        message: `"${value}" is neither a profile (${Object.keys(PROFILES).join(', ')}) nor a readable file`,
      },
    ]);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new ConfigError([
      { where: '--profile', message: `${value}: not valid JSON or YAML: ${(err as Error).message}` },
    ]);
  }
}

async function emulate(args: EmulateArgs, io: CliIo): Promise<ExitCode> {
  const keyGiven = args['api-key'] ?? io.env.JOBSTORM_API_KEY;
  const given: Record<string, unknown> = {
    host: args.host,
    port: args.port,
    endpoints: args.endpoint,
    workersMin: args['workers-min'],
    workersMax: args['workers-max'],
    requestsPerWorker: args['requests-per-worker'],
    clock: args.clock,
    faults: args.fault,
    streamShape: args['stream-shape'],
    externalWorkers: args['external-workers'],
  };
  if (keyGiven !== undefined && keyGiven !== '') given.apiKey = keyGiven;
  if (args.profile !== undefined) given.profile = await loadProfile(args.profile);
  // Unset flags are left out, so the emulator's own defaults apply; its zod schema checks the rest.
  const options = Object.fromEntries(
    Object.entries(given).filter(([, v]) => v !== undefined),
  ) as EmulatorOptions;
  let handle: EmulatorHandle;
  try {
    handle = await startEmulator(options);
  } catch (err) {
    if (err instanceof ConfigError) throw asFlags(err);
    io.err(`jobstorm emulate: cannot listen on ${args.host}:${String(args.port)}: ${(err as Error).message}`);
    return ExitCode.Aborted;
  }
  // The first line is the base URL, for scripts: `URL=$(jobstorm emulate | head -1)`.
  io.out(handle.url);
  if (keyGiven === undefined || keyGiven === '')
    io.out(`api key: ${handle.apiKey} (set JOBSTORM_API_KEY or --api-key to choose one)`);
  io.out(`management: ${handle.managementUrl}`);
  io.out(`admin: ${handle.adminUrl}/ (same key)`);
  if (args.fault && args.fault.length > 0) io.out(`faults: ${args.fault.join(', ')}`);
  if (args['external-workers'] === true) {
    io.out(
      'external workers: only real workers take jobs. Start each one with this environment (its own RUNPOD_POD_ID):',
    );
    io.out(
      exportBlock(workerEnvironment(handle.url, handle.apiKey, DEFAULT_WORKER_PING_INTERVAL_MS), 'worker-1'),
    );
  }
  io.out('serving; Ctrl-C stops');
  await new Promise<void>((resolve) => {
    if (io.interrupt.aborted) resolve();
    else io.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close();
  io.err('jobstorm emulate: stopped');
  return ExitCode.Ok;
}

/** What `emulate` does once its arguments parsed; loaded only when the command runs. */
export const emulateAction: Pick<JobstormCommand<EmulateArgs>, 'run'> = {
  run: emulate,
};
