import { ConfigError } from '../../core/config-error.js';
import { startEmulatorInWorker } from '../../emulator/in-worker.js';
import type { EmulatorOptions } from '../../emulator/options.js';
import type { EmulatorHandle } from '../../emulator/start.js';
import type { Target } from '../../runner/run-options.js';
import type { Scenario } from '../../scenario/scenario.js';

export interface ResolvedTarget {
  target: Target;
  /** The embedded emulator, when the run started one. */
  emulator?: EmulatorHandle;
}

/** `--target` as given, or the embedded emulator configured from the scenario's `emulator:` block. */
export async function resolveTarget(opts: {
  scenario: Scenario;
  target?: string;
  apiKey?: string;
  managementUrl?: string;
  fault?: readonly string[];
  /** Extra options of the embedded emulator (real worker processes: worker-target.ts). */
  emulatorOptions?: EmulatorOptions;
}): Promise<ResolvedTarget> {
  const { scenario } = opts;
  if (opts.target !== undefined) {
    const issues = [];
    let url: URL | undefined;
    try {
      url = new URL(opts.target);
    } catch {
      issues.push({ where: '--target', message: `not a URL: ${opts.target}; expected {serverless_url}/v2/<endpointId>` });
    }
    if (url && (url.username || url.password)) issues.push({ where: '--target', message: 'put the key in --api-key or JOBSTORM_API_KEY, not in the URL' });
    if (url && !/\/v2\/[^/]+\/?$/.test(url.pathname)) issues.push({ where: '--target', message: `expected a URL ending in /v2/<endpointId>, got ${url.pathname}` });
    if (!opts.apiKey) issues.push({ where: '--api-key', message: 'a key is needed for --target: give --api-key or set JOBSTORM_API_KEY' });
    if (scenario.flows.some((f) => JSON.stringify(f.steps).includes('"kind":"advance"'))) issues.push({ where: scenario.source, message: 'advance steps move the embedded emulator\'s clock; they cannot run against --target' });
    if (issues.length > 0 || !url || !opts.apiKey) throw new ConfigError(issues);
    const base = opts.target.replace(/\/+$/, '');
    const management = opts.managementUrl ?? `${url.origin}/v1`;
    return { target: { baseUrl: base, managementUrl: management, apiKey: opts.apiKey, ownsEndpoint: false } };
  }
  const e = scenario.emulator;
  const emulator = await startEmulatorInWorker({
    port: 0,
    workersMin: e.workersMin,
    workersMax: e.workersMax,
    requestsPerWorker: e.requestsPerWorker,
    idleTimeout: Math.max(0.001, e.idleTimeoutMs / 1000),
    coldStartMs: e.coldStartMs,
    clock: e.clock,
    streamShape: e.streamShape,
    faults: [...e.faults, ...(opts.fault ?? [])],
    // The emulator validates the profile itself (a ConfigError names what is wrong).
    ...(Object.keys(e.profile).length > 0 ? { profile: e.profile as EmulatorOptions['profile'] } : {}),
    ...opts.emulatorOptions,
  });
  return {
    emulator,
    target: {
      baseUrl: emulator.url,
      managementUrl: emulator.managementUrl,
      apiKey: emulator.apiKey,
      ownsEndpoint: true,
      requestsPerWorker: e.requestsPerWorker,
      clock: e.clock,
      emulator: {
        advance: async (ms) => {
          await emulator.advance(ms);
        },
      },
    },
  };
}
