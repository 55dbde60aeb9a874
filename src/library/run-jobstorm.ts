import { CHECK_IDS } from '../check/catalog.js';
import { systemClock } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { parseThresholds, type Threshold } from '../report/threshold.js';
import { thresholdSources } from '../report/threshold-source.js';
import type { Scenario } from '../scenario/scenario.js';
import { runIdFor } from '../session/run-id.js';
import { assembleRun } from '../session/run-assembly.js';
import { endingOf, exitCodeOf } from '../session/run-exit.js';
import type { RunSessionOptions } from '../session/session-options.js';
import type { JobstormRun, RunJobstormOptions } from './library-options.js';
import { remoteTarget } from './remote-target.js';
import { reachTarget, type RunTarget } from './run-target.js';
import { scenarioOf } from './scenario-source.js';

function thresholdsOf(scenario: Scenario, extra: readonly string[]): Threshold[] {
  return parseThresholds(
    [
      ...thresholdSources(scenario.thresholds, scenario.source),
      ...extra.map((expression) => ({ expression, where: 'thresholds' })),
    ],
    { checkIds: CHECK_IDS },
  );
}

/**
 * The target `o` names: a Target as given, a remote URL validated, or the embedded emulator (on
 * `o.clock` when it is a caller's own). Also the fuzzer's, for a trial and the load beside it.
 */
export function reachTargetOf(o: RunJobstormOptions, scenario: Scenario): Promise<RunTarget> {
  const extra = { exclusiveEndpoint: o.exclusiveEndpoint };
  if (typeof o.target === 'object') return reachTarget(scenario, { remote: o.target, ...extra });
  if (o.target === undefined)
    return reachTarget(scenario, {
      ...(o.faults?.length ? { faults: o.faults } : {}),
      // A clock of the caller's own (a test's manual one) is the embedded emulator's too, in this thread.
      ...(o.clock && o.clock !== systemClock ? { emulatorClock: o.clock } : {}),
      ...extra,
    });
  const issues: ConfigIssue[] = [];
  if (o.faults?.length)
    issues.push({ where: 'faults', message: 'faults switch on the embedded emulator, not a remote target' });
  const target = remoteTarget(
    {
      target: o.target,
      from: 'target',
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      ...(o.managementUrl ? { managementUrl: o.managementUrl } : {}),
      ...(o.routes ? { routes: o.routes } : {}),
    },
    scenario,
    issues,
  );
  if (!target || issues.length > 0) throw new ConfigError(issues);
  return reachTarget(scenario, { remote: target, ...extra });
}

function sessionOptions(
  o: RunJobstormOptions,
  scenario: Scenario,
  thresholds: Threshold[],
): Omit<RunSessionOptions, 'target'> {
  return {
    scenario,
    runId: o.runId ?? runIdFor(scenario.name, (o.clock ?? systemClock).epochNow()),
    clock: o.clock ?? systemClock,
    thresholds,
    checks: o.checks === false ? false : o.checks === true || o.checks === undefined ? {} : o.checks,
    ...(o.exports ? { exports: { sink: o.exports, stopAtFinish: true } } : {}),
    sinks: {
      ...(o.onRecord ? { record: o.onRecord } : {}),
      ...(o.onProgress ? { progress: o.onProgress } : {}),
      ...(o.onWarning ? { warning: o.onWarning } : {}),
    },
    preflight: o.preflight !== false,
    ...(o.signal ? { interrupt: o.signal } : {}),
    workers: o.workers,
    gracefulStopMs: o.gracefulStopMs,
  };
}

/**
 * Runs a scenario, as `jobstorm run` does, and resolves with its Summary: against a remote target,
 * or against the embedded emulator, which it starts and closes itself. Throws a ConfigError
 * (listing every problem) before anything is sent when the scenario, thresholds or target are
 * wrong; never for what the target does, which the summary reports. Writes no files.
 */
export async function runJobstorm(o: RunJobstormOptions): Promise<JobstormRun> {
  const scenario = await scenarioOf(o);
  const thresholds = thresholdsOf(scenario, o.thresholds ?? []);
  // A remote URL is refused before anything starts; a Target object or the emulator is reached here.
  const { session, run } = await assembleRun({
    reach: () => reachTargetOf(o, scenario),
    session: () => sessionOptions(o, scenario, thresholds),
  });
  const outcome = await run();
  const summary = await session.finish();
  return { summary, outcome, exitCode: exitCodeOf(endingOf(summary, outcome)) };
}
