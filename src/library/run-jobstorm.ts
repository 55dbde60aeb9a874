import { systemClock } from '../core/clock.js';
import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { ExitCode } from '../core/exit-code.js';
import type { EmulatorHandle } from '../emulator/start.js';
import { parseThresholds, type Threshold } from '../report/threshold.js';
import { thresholdSources } from '../report/threshold-source.js';
import type { Summary } from '../report/summary.js';
import { VERDICT_EXIT } from '../report/verdict.js';
import type { RunOutcome, Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';
import { runIdFor } from '../session/run-id.js';
import { RunSession } from '../session/run-session.js';
import type { RunSessionOptions } from '../session/session-options.js';
import { startEmbeddedTarget } from './embedded-target.js';
import type { JobstormRun, RunJobstormOptions } from './library-options.js';
import { remoteTarget } from './remote-target.js';
import { scenarioOf } from './scenario-source.js';

function thresholdsOf(scenario: Scenario, extra: readonly string[]): Threshold[] {
  return parseThresholds([
    ...thresholdSources(scenario.thresholds, scenario.source),
    ...extra.map((expression) => ({ expression, where: 'thresholds' })),
  ]);
}

/** A remote target validated, or the embedded emulator started (the caller closes it). */
async function reach(
  o: RunJobstormOptions,
  scenario: Scenario,
): Promise<{ target: Target; emulator?: EmulatorHandle }> {
  if (typeof o.target === 'object') return { target: o.target };
  if (o.target === undefined)
    return startEmbeddedTarget(scenario, o.faults?.length ? { fault: o.faults } : {});
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
  return { target };
}

function sessionOptions(
  o: RunJobstormOptions,
  scenario: Scenario,
  target: Target,
  thresholds: Threshold[],
): RunSessionOptions {
  return {
    scenario,
    target,
    runId: o.runId ?? runIdFor(scenario.name),
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
    ...(o.workers === undefined ? {} : { workers: o.workers }),
    ...(o.gracefulStopMs === undefined ? {} : { gracefulStopMs: o.gracefulStopMs }),
  };
}

/** What `jobstorm run` would exit with for this run. */
function exitCodeOf(summary: Summary, outcome: RunOutcome): ExitCode {
  if (outcome.preflight?.fatal?.kind === 'key-refused') return ExitCode.Usage;
  if (summary.run.end === 'shard-failed') return ExitCode.Aborted;
  return VERDICT_EXIT[summary.verdict.status];
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
  const { target, emulator } = await reach(o, scenario);
  const session = new RunSession(sessionOptions(o, scenario, target, thresholds));
  let outcome: RunOutcome;
  try {
    outcome = await session.run();
  } finally {
    await emulator?.close();
  }
  const summary = await session.finish();
  return { summary, outcome, exitCode: exitCodeOf(summary, outcome) };
}
