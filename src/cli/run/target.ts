import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import type { ProcessGroups } from '../../emulator/external/process-groups.js';
import type { EmulatorOptions } from '../../emulator/options.js';
import type { EmulatorHandle } from '../../emulator/start.js';
import { remoteTarget, type RouteLayout } from '../../library/remote-target.js';
import type { Target } from '../../runner/run-options.js';
import type { Scenario } from '../../scenario/scenario.js';

export { remoteTarget, type RemoteChoice, type RouteLayout } from '../../library/remote-target.js';

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
  // The emulator only when there is no --target: loading it costs a run against a real target
  // CPU and start-up time for nothing (issue 35).
  const { startEmbeddedTarget } = await import('../../library/embedded-target.js');
  return startEmbeddedTarget(scenario, {
    ...(opts.fault ? { fault: opts.fault } : {}),
    ...(opts.emulatorOptions ? { emulatorOptions: opts.emulatorOptions } : {}),
    ...(opts.processGroups ? { processGroups: opts.processGroups } : {}),
  });
}
