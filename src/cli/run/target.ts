import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import type { EmulatorHandle } from '../../emulator/start.js';
import { remoteTarget, type RouteLayout } from '../../library/remote-target.js';
import { reachTarget } from '../../library/run-target.js';
import type { Target } from '../../runner/run-options.js';
import type { Scenario } from '../../scenario/scenario.js';

export { remoteTarget, type RemoteChoice, type RouteLayout } from '../../library/remote-target.js';

export interface ResolvedTarget {
  target: Target;
  /** The embedded emulator, when the run started one. */
  emulator?: EmulatorHandle;
}

/**
 * `--target` as given, or the embedded emulator configured from the scenario's `emulator:` block
 * (started by library/run-target.ts, as for every run; the caller closes it).
 */
export async function resolveTarget(opts: {
  scenario: Scenario;
  target?: string;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  fault?: readonly string[];
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
  return reachTarget(scenario, opts.fault ? { faults: opts.fault } : {});
}
