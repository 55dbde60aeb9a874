import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { startEmulatorInWorker } from '../../emulator/in-worker.js';
import type { ProcessGroups } from '../../emulator/external/process-groups.js';
import type { EmulatorOptions } from '../../emulator/options.js';
import type { EmulatorHandle } from '../../emulator/start.js';
import type { Target } from '../../runner/run-options.js';
import type { Scenario } from '../../scenario/scenario.js';

export interface ResolvedTarget {
  target: Target;
  /** The embedded emulator, when the run started one. */
  emulator?: EmulatorHandle;
}

/** Where the operations live under the base URL: `/v2/<endpointId>` (the service), or the root (local servers). */
export type RouteLayout = 'v2' | 'root';

export interface RemoteChoice {
  /** The base URL, and where it came from (named in errors). */
  target: string;
  from: string;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  auth?: 'bearer' | 'bare' | 'none';
}

/**
 * Validates a remote target, adding every problem to `issues` (so flags, environment and scenario
 * are reported together, before anything is sent). Returns the target when it is usable.
 */
export function remoteTarget(
  choice: RemoteChoice,
  scenario: Scenario,
  issues: ConfigIssue[],
): Target | undefined {
  const where = choice.from;
  const before = issues.length;
  let url: URL | undefined;
  try {
    url = new URL(choice.target);
  } catch {
    issues.push({
      where,
      message: `not a URL: ${choice.target}; expected {serverless_url}/v2/<endpointId>, or any base URL with --routes root`,
    });
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
    issues.push({ where, message: `expected an http or https URL, got ${url.protocol}` });
  if (url && (url.username || url.password))
    issues.push({ where, message: 'put the key in --api-key or JOBSTORM_API_KEY, not in the URL' });
  if (url && (url.search || url.hash))
    issues.push({ where, message: 'a base URL takes no query or fragment' });
  if (url && (choice.routes ?? 'v2') === 'v2' && !/\/v2\/[^/]+\/?$/.test(url.pathname)) {
    issues.push({
      where,
      message: `expected a URL ending in /v2/<endpointId>, got ${url.pathname}; for a server that serves the operations directly under this URL (/run, /status/<id>…), add --routes root`,
    });
  }
  const keyless = (choice.auth ?? scenario.target.auth) === 'none';
  if (!choice.apiKey && !keyless)
    issues.push({
      where: '--api-key',
      message:
        'a key is needed for a remote target: give --api-key or set JOBSTORM_API_KEY (or --auth none for a target without authentication)',
    });
  if (scenario.flows.some((f) => JSON.stringify(f.steps).includes('"kind":"advance"')))
    issues.push({
      where: scenario.source,
      message: "advance steps move the embedded emulator's clock; they cannot run against a remote target",
    });
  if (issues.length > before || !url) return undefined;
  const base = choice.target.replace(/\/+$/, '');
  const management = choice.managementUrl ?? `${url.origin}/v1`;
  return { baseUrl: base, managementUrl: management, apiKey: choice.apiKey ?? '', ownsEndpoint: false };
}

/** `--target` as given, or the embedded emulator configured from the scenario's `emulator:` block. */
export async function resolveTarget(opts: {
  scenario: Scenario;
  target?: string;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  fault?: readonly string[];
  /** Extra options of the embedded emulator (real worker processes: worker-target.ts). */
  emulatorOptions?: EmulatorOptions;
  /** Where the emulator keeps its worker processes' groups (real workers: worker-target.ts). */
  processGroups?: ProcessGroups;
}): Promise<ResolvedTarget> {
  const { scenario } = opts;
  if (opts.target !== undefined) {
    const issues: ConfigIssue[] = [];
    const target = remoteTarget(
      {
        target: opts.target,
        from: '--target',
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
        ...(opts.managementUrl ? { managementUrl: opts.managementUrl } : {}),
        ...(opts.routes ? { routes: opts.routes } : {}),
      },
      scenario,
      issues,
    );
    if (!target) throw new ConfigError(issues);
    return { target };
  }
  const e = scenario.emulator;
  const emulator = await startEmulatorInWorker(
    {
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
    },
    opts.processGroups ? { processGroups: opts.processGroups } : {},
  );
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
