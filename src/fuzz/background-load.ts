import { systemClock } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { remoteTarget } from '../library/remote-target.js';
import { runJobstorm } from '../library/run-jobstorm.js';
import { reachTarget, type RunTarget } from '../library/run-target.js';
import { scenarioOf } from '../library/scenario-source.js';
import type { Target } from '../runner/run-options.js';
import type { ScenarioInput } from '../scenario/scenario-schema.js';
import type { RouteLayout } from '../library/remote-target.js';
import type { EpochClock } from '../core/clock.js';

/*
 * A trial beside a background load (issue 50: bugs that need load show up under it): the load's
 * scenario runs against the trial's own target from before the trial's first job until its last
 * answer, then is stopped. Only the trial is judged: the load's jobs share the endpoint, so the
 * trial's target says so (checks that need the queue to be ours alone do not judge), and the
 * trial's purges reach the load's jobs, which the load's own run could not explain.
 */

/** What a trial's target is, and the load to run beside it (a scenario file). */
export interface LoadSettings {
  target?: string | Target;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  faults: readonly string[];
  clock?: EpochClock;
  signal?: AbortSignal;
  load: string;
}

/** The one target a trial and its load share: the embedded emulator with the trial's settings, or the remote one. */
async function sharedTarget(scenario: ScenarioInput, s: LoadSettings): Promise<RunTarget> {
  const parsed = await scenarioOf({ scenario });
  if (typeof s.target === 'object') return reachTarget(parsed, { remote: s.target });
  if (s.target !== undefined) {
    const issues: ConfigIssue[] = [];
    const remote = remoteTarget(
      {
        target: s.target,
        from: '--target',
        ...(s.apiKey === undefined ? {} : { apiKey: s.apiKey }),
        ...(s.managementUrl === undefined ? {} : { managementUrl: s.managementUrl }),
        ...(s.routes === undefined ? {} : { routes: s.routes }),
      },
      parsed,
      issues,
    );
    if (!remote) throw new ConfigError(issues);
    return reachTarget(parsed, { remote });
  }
  return reachTarget(parsed, {
    ...(s.faults.length > 0 ? { faults: s.faults } : {}),
    ...(s.clock && s.clock !== systemClock ? { emulatorClock: s.clock } : {}),
  });
}

/**
 * Runs `trial` against the target with the load beside it; resolves with the trial's result and
 * how many calls the load made meanwhile.
 */
export async function besideLoad<T>(
  scenario: ScenarioInput,
  s: LoadSettings,
  trial: (target: Target) => Promise<T>,
): Promise<{ result: T; loadCalls: number }> {
  const reached = await sharedTarget(scenario, s);
  const target: Target = { ...reached.target, ownsEndpoint: false, exclusiveEndpoint: false };
  const stop = new AbortController();
  let loadCalls = 0;
  const load = runJobstorm({
    scenarioFile: s.load,
    target,
    checks: false,
    preflight: false,
    signal: s.signal ? AbortSignal.any([stop.signal, s.signal]) : stop.signal,
    ...(s.clock ? { clock: s.clock } : {}),
    onRecord: (r) => {
      if (r.type === 'exchange') loadCalls++;
    },
  });
  try {
    const result = await trial(target);
    return { result, loadCalls };
  } finally {
    stop.abort();
    // The load's own verdict is not the fuzz's; a load that failed to run shows as no calls.
    await load.catch(() => undefined);
    await reached.close();
  }
}
