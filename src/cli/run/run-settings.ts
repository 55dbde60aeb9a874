import { CHECK_IDS } from '../../check/catalog.js';
import { parseTolerances } from '../../check/tolerance-options.js';
import type { Tolerances } from '../../check/tolerances.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { parseThresholds, type Threshold } from '../../report/threshold.js';
import { thresholdSources } from '../../report/threshold-source.js';
import { DEFAULT_GRACEFUL_STOP_MS, type ShardSpec, type Target } from '../../runner/run-options.js';
import { formatDuration } from '../../scenario/duration.js';
import {
  capStepTimeouts,
  fitDuration,
  scaleRates,
  totalDurationMs,
  withStrictTarget,
  withWarmup,
} from '../../scenario/phase-scaling.js';
import type { Scenario } from '../../scenario/scenario.js';
import type { WorkerSpec } from '../../scenario/worker-schema.js';
import type { CliIo } from '../command.js';
import type { RunArgs } from '../commands/run-args.js';
import { collect, loadScenarioInto } from './collect.js';
import { parseKnownFlags } from '../known-flags.js';
import { withChecks } from '../../scenario/checks-section.js';
import { parseDashboardFlags, type DashboardSettings } from './dashboard-flags.js';
import { parseExportSettings, type ExportSettings } from './export-settings.js';
import { parseRunFlags, type RunFlags } from './run-flags.js';
import { remoteTarget } from './target.js';
import type { TogetherFlag } from './together-flags.js';
import { workerSpecFor } from './worker-target.js';

export interface RunSettings {
  scenario: Scenario;
  /** A remote target (--target or $JOBSTORM_TARGET), validated; none means the embedded emulator. */
  remote?: Target;
  gracefulStopMs?: number;
  worker?: WorkerSpec;
  shard?: ShardSpec;
  workers: number;
  thresholds: Threshold[];
  tolerances: Partial<Tolerances>;
  exports: ExportSettings;
  /** --barrier or --start-at. */
  together?: TogetherFlag;
  /** --local-address. */
  localAddress?: string;
  /** --dashboard. */
  dashboard?: DashboardSettings;
}

/** Faults and --routes each belong to one kind of target. */
function targetFlagIssues(args: RunArgs, remoteUrl: string | undefined, issues: ConfigIssue[]): void {
  if (args.fault?.length && remoteUrl !== undefined)
    issues.push({
      where: '--fault',
      message: 'faults switch on the embedded emulator; they cannot apply to a remote target',
    });
  if (args.routes !== undefined && remoteUrl === undefined)
    issues.push({
      where: '--routes',
      message: 'applies to a remote target only: give --target (or set JOBSTORM_TARGET)',
    });
}

function remoteOf(
  args: RunArgs,
  io: CliIo,
  remoteUrl: string | undefined,
  scenario: Scenario | undefined,
  issues: ConfigIssue[],
): Target | undefined {
  if (remoteUrl === undefined || !scenario) return undefined;
  const apiKey = args['api-key'] ?? io.env.JOBSTORM_API_KEY;
  return remoteTarget(
    {
      target: remoteUrl,
      from: args.target === undefined ? 'JOBSTORM_TARGET' : '--target',
      ...(apiKey ? { apiKey } : {}),
      ...(args['management-url'] ? { managementUrl: args['management-url'] } : {}),
      ...(args.routes ? { routes: args.routes } : {}),
      ...(args.auth ? { auth: args.auth } : {}),
    },
    scenario,
    issues,
  );
}

/** The scenario's thresholds, then the --threshold flags, each named where it came from. */
function thresholdsOf(
  args: RunArgs,
  scenario: Scenario | undefined,
  issues: ConfigIssue[],
): Threshold[] | undefined {
  return collect(issues, () =>
    parseThresholds(
      [
        ...thresholdSources(scenario?.thresholds ?? [], scenario?.source ?? ''),
        ...(args.threshold ?? []).map((expression) => ({ expression, where: '--threshold' })),
      ],
      { checkIds: CHECK_IDS },
    ),
  );
}

/** The scenario as the flags reshape it: fitted to --duration, with --warmup, --rate-scale, --auth. */
function shaped(scenario: Scenario, flags: RunFlags, args: RunArgs): Scenario {
  const { durationMs, warmupMs, scale, gracefulStopMs } = flags;
  let s = scenario;
  if (durationMs !== undefined)
    s = capStepTimeouts(
      fitDuration(s, durationMs),
      durationMs + (gracefulStopMs ?? DEFAULT_GRACEFUL_STOP_MS),
    );
  if (warmupMs !== undefined) {
    s = withWarmup(s, warmupMs);
    const total = totalDurationMs(s.phases);
    if (warmupMs > 0 && warmupMs >= total)
      throw new ConfigError([
        {
          where: '--warmup',
          message: `must be shorter than the phases (${formatDuration(total)} in all${durationMs === undefined ? '' : ' after --duration'}), or nothing is measured`,
        },
      ]);
  }
  if (scale !== undefined) s = scaleRates(s, scale);
  if (args.auth) s = { ...s, target: { ...s.target, auth: args.auth } };
  if (args.strict) s = withStrictTarget(s);
  return s;
}

/** Validates every flag and the scenario at once; nothing is sent before this passes. */
export async function settleRun(args: RunArgs, io: CliIo): Promise<RunSettings> {
  const issues: ConfigIssue[] = [];
  const scenario = await loadScenarioInto(issues, args.scenario, io.env);
  const flags = parseRunFlags(args, issues);
  const tolerances = collect(issues, () => parseTolerances(args.tolerance ?? []));
  const remoteUrl = args.target ?? io.env.JOBSTORM_TARGET;
  targetFlagIssues(args, remoteUrl, issues);
  const remote = remoteOf(args, io, remoteUrl, scenario, issues);
  const thresholds = thresholdsOf(args, scenario, issues);
  const exports = collect(issues, () => parseExportSettings(args, scenario, io.env));
  const dashboard = parseDashboardFlags(args, issues);
  const checking = parseKnownFlags(args, issues);
  const worker = scenario ? workerSpecFor(scenario, args.worker, issues, remoteUrl !== undefined) : undefined;
  if (issues.length > 0 || !scenario || !thresholds || !tolerances || !exports) throw new ConfigError(issues);
  const { shard, workers, gracefulStopMs, together, localAddress } = flags;
  return {
    ...(together ? { together } : {}),
    localAddress,
    scenario: withChecks(shaped(scenario, flags, args), checking),
    workers,
    thresholds,
    tolerances,
    exports,
    ...(shard ? { shard } : {}),
    ...(remote ? { remote } : {}),
    ...(worker ? { worker } : {}),
    ...(dashboard ? { dashboard } : {}),
    gracefulStopMs,
  };
}
