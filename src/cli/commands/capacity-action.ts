import { CHECK_IDS } from '../../check/catalog.js';
import { thresholdSources } from '../../report/threshold-source.js';
import { join, resolve } from 'node:path';
import { findCapacity, planOf } from '../../capacity/capacity-search.js';
import type { CapacityReport } from '../../capacity/capacity-report.js';
import type {
  CapacityOptions,
  LiveSummarySource,
  SearchMode,
  StepPlan,
} from '../../capacity/capacity-options.js';
import { renderCapacityText, stepLine } from '../../capacity/capacity-text.js';
import { lostStep, planLine } from '../../capacity/capacity-view.js';
import { writeCapacityReports } from '../../capacity/capacity-writer.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import type { ExitCode } from '../../core/exit-code.js';
import { parseThresholds, type Threshold } from '../../report/threshold.js';
import { VIOLATION_PREFIX } from '../../report/threshold-metrics.js';
import { durationIssue, parseDuration } from '../../scenario/duration.js';
import { withStrictTarget } from '../../scenario/phase-scaling.js';
import type { Phase, Scenario } from '../../scenario/scenario.js';
import { clockOf, type CliIo, type JobstormCommand } from '../command.js';
import type { CapacityArgs } from './capacity-args.js';
import { collect, loadScenarioInto } from '../run/collect.js';
import { resolveTarget } from '../run/target.js';
import { reachTarget, type RunTarget } from '../../library/run-target.js';
import type { Target } from '../../runner/run-options.js';
import { exitCodeOf } from '../../session/run-exit.js';
import { searchStatus } from '../../capacity/search-status.js';
import { parseExportSettings, type ExportSettings } from '../run/export-settings.js';
import { startLiveExports } from '../run/live-export.js';
import { writeWorkersJson } from '../run/worker-report.js';
import { readProcessCpu } from '../run/process-cpu.js';
import type { PhasePlan } from '../run/phase-plan.js';
import { clearLiveLine, progressSink } from '../run/progress-sink.js';
import { formatRate } from '../../report/format.js';
import {
  guardWorkerProcesses,
  WorkerFigures,
  workerEmulatorOptions,
  workerSpecFor,
} from '../run/worker-target.js';
import type { WorkerSpec } from '../../scenario/index.js';
import { runIdFor } from '../../session/run-id.js';
import type { ExportSummary } from '../../report/summary.js';
import { renderCapacityHtml } from '../../capacity/capacity-html.js';
import type { Dashboard } from '../../dashboard/index.js';
import { parseDashboardFlags, startDashboard, type DashboardSettings } from '../run/dashboard-flags.js';

interface Settings {
  scenario: Scenario;
  worker?: WorkerSpec;
  slo: Threshold[];
  steps: StepPlan;
  /** Set when --target was given (validated with everything else); the emulator starts later. */
  remote?: Target;
  exports: ExportSettings;
  notes: string[];
  dashboard?: DashboardSettings;
}

/** The capacity search runs no contract checks, so violation counts would always read 0. */
function judgesViolations(t: Threshold): boolean {
  return t.metric === 'violations' || t.metric.startsWith(VIOLATION_PREFIX);
}

function peakRate(phases: readonly Phase[]): number | undefined {
  const rates = phases.flatMap((p) =>
    p.kind === 'constant'
      ? [p.rate]
      : p.kind === 'ramp'
        ? [p.from, p.to]
        : p.kind === 'count' && p.rate !== undefined
          ? [p.rate]
          : [],
  );
  const peak = Math.max(0, ...rates);
  return peak > 0 ? peak : undefined;
}

function positive(issues: ConfigIssue[], where: string, v: number | undefined, min = 0): void {
  if (v !== undefined && !(Number.isFinite(v) && v > min))
    issues.push({ where, message: `expected a number above ${String(min)}, got ${String(v)}` });
}

function duration(issues: ConfigIssue[], where: string, text: string, allowZero: boolean): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || (!allowZero && ms === 0)) {
    issues.push({
      where,
      message: durationIssue(text) ?? `expected a duration like 20s, 1m or 500ms, got "${text}"`,
    });
    return 0;
  }
  return ms;
}

/** Parses each expression on its own, so one bad expression does not hide the next one's problem. */
function parseEach(
  sources: readonly { expression: string; where: string }[],
  issues: ConfigIssue[],
): Threshold[] {
  return sources.flatMap(
    (source) => collect(issues, () => parseThresholds([source], { checkIds: CHECK_IDS })) ?? [],
  );
}

function sloOf(
  args: CapacityArgs,
  scenario: Scenario | undefined,
  issues: ConfigIssue[],
  notes: string[],
): Threshold[] {
  if (args.slo?.length) {
    const slo = parseEach(
      args.slo.map((expression) => ({ expression, where: '--slo' })),
      issues,
    );
    for (const t of slo.filter(judgesViolations))
      issues.push({
        where: '--slo',
        message: `"${t.expression}": capacity runs no contract checks, so violations cannot be judged; use jobstorm run for that`,
      });
    return slo;
  }
  if (!scenario) return [];
  const all = parseEach(thresholdSources(scenario.thresholds, scenario.source, { live: false }), issues);
  const skipped = all.filter(judgesViolations);
  if (skipped.length)
    notes.push(
      `skipping ${skipped.map((t) => `"${t.expression}"`).join(', ')}: capacity runs no contract checks`,
    );
  const slo = all.filter((t) => !judgesViolations(t));
  if (!slo.length && all.length === scenario.thresholds.length)
    issues.push({
      where: '--slo',
      message: 'no SLO: give --slo (e.g. --slo "p95(e2e) < 10s") or thresholds in the scenario',
    });
  return slo;
}

/** --start, --factor, --increment, --max, --step-duration and --warmup: the steps to climb. */
function stepPlanOf(args: CapacityArgs, scenario: Scenario | undefined, issues: ConfigIssue[]): StepPlan {
  positive(issues, '--start', args.start);
  positive(issues, '--factor', args.factor, 1);
  positive(issues, '--increment', args.increment);
  positive(issues, '--max', args.max);
  positive(issues, '--resolution', args.resolution);
  if (args.factor !== undefined && args.increment !== undefined)
    issues.push({ where: '--increment', message: 'give --factor or --increment, not both' });
  const start = args.start ?? (scenario ? (peakRate(scenario.phases) ?? 10) : 10);
  const max = args.max ?? start * 20;
  if (start > 0 && max > 0 && max < start)
    issues.push({
      where: '--max',
      message: `must be at least the start rate (${String(start)}/s), got ${String(max)}`,
    });
  const stepDurationMs = duration(issues, '--step-duration', args['step-duration'] ?? '20s', false);
  const warmupMs = duration(issues, '--warmup', args.warmup ?? '5s', true);
  const growth =
    args.increment !== undefined ? { increment: args.increment } : { factor: args.factor ?? 1.5 };
  return { start, max, ...growth, stepDurationMs, warmupMs };
}

/** --target, validated with everything else; the embedded emulator starts later. */
async function remoteOf(
  args: CapacityArgs,
  io: CliIo,
  scenario: Scenario | undefined,
  issues: ConfigIssue[],
): Promise<Target | undefined> {
  if (!scenario || args.target === undefined) return undefined;
  const apiKey = args['api-key'] ?? io.env.JOBSTORM_API_KEY;
  try {
    const resolved = await resolveTarget({
      scenario,
      target: args.target,
      ...(apiKey ? { apiKey } : {}),
      ...(args['management-url'] ? { managementUrl: args['management-url'] } : {}),
    });
    return resolved.target;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues);
    return undefined;
  }
}

/** Validates every flag, the scenario and the SLO at once; nothing is sent before this passes. */
async function settle(args: CapacityArgs, io: CliIo): Promise<Settings> {
  const issues: ConfigIssue[] = [];
  const notes: string[] = [];
  const loaded = await loadScenarioInto(issues, args.scenario, io.env);
  const scenario = loaded && args.strict ? withStrictTarget(loaded) : loaded;
  const slo = sloOf(args, scenario, issues, notes);
  const steps = stepPlanOf(args, scenario, issues);
  const remote = await remoteOf(args, io, scenario, issues);
  const worker = scenario
    ? workerSpecFor(scenario, args.worker, issues, args.target !== undefined)
    : undefined;
  const exports = collect(issues, () => parseExportSettings(args, scenario, io.env));
  const dashboard = parseDashboardFlags(args, issues);
  if (issues.length > 0 || !scenario || !exports) throw new ConfigError(issues);
  return {
    ...(dashboard ? { dashboard } : {}),
    scenario,
    slo,
    steps,
    exports,
    notes,
    ...(remote ? { remote } : {}),
    ...(worker ? { worker } : {}),
  };
}

/** The target, reached through the one assembly (library/run-target.ts) for every step. */
function reach(s: Settings, io: CliIo, out: string, workers: WorkerFigures): Promise<RunTarget> {
  const guard = s.worker ? guardWorkerProcesses() : undefined;
  return reachTarget(s.scenario, {
    ...(s.remote ? { remote: s.remote } : {}),
    ...(s.worker ? { emulatorOptions: workerEmulatorOptions(s.worker, io.env, out) } : {}),
    ...(guard ? { workerGuard: guard } : {}),
    ...(s.worker ? { beforeClose: workers.read } : {}),
    // An in-process caller's clock (a test's manual one) is the embedded emulator's too.
    ...(io.clock ? { emulatorClock: io.clock } : {}),
  });
}

/**
 * The search's exit code, its reasons said on stderr: what the search amounts to (searchStatus)
 * mapped by the one table every run uses.
 */
function exitOf(report: CapacityReport, baseUrl: string, io: CliIo): ExitCode {
  if (report.targetUnreachable) {
    const lost = lostStep(report);
    io.err(
      `jobstorm capacity: the target ${baseUrl} ${lost ? `stopped answering during step ${String(lost.index)}; the search ended there` : 'could not be reached'}.`,
    );
  }
  return exitCodeOf({ status: searchStatus(report) });
}

/** What the search will do, said before the first step (its 11 s or more are not silent). */
function announce(s: Settings, io: CliIo, mode: SearchMode, where: string): void {
  io.err(`jobstorm capacity: ${s.scenario.name} against ${where}`);
  io.err(`  ${planLine({ mode, plan: planOf(s.steps) })}`);
  io.err(`  SLO: ${s.slo.map((t) => t.expression).join(', ') || 'none'}`);
}

/** Each step's live line while it runs, and its result line as it ends, the live line cleared first. */
function stepOutput(s: Settings, io: CliIo): Pick<CapacityOptions, 'onStep' | 'onProgress'> {
  const { warmupMs, stepDurationMs } = s.steps;
  const plan = (index: number, rate: number): PhasePlan => ({
    phases: [
      {
        name: `step ${String(index)} at ${formatRate(rate)}/s`,
        startMs: 0,
        endMs: warmupMs + stepDurationMs,
      },
    ],
    totalMs: warmupMs + stepDurationMs,
    warmupMs,
  });
  return {
    onProgress: (p) => progressSink(io, plan(p.index, p.rate), false)(p.snapshot, p.view),
    onStep: (step) => {
      clearLiveLine(io);
      io.err(stepLine(step));
    },
  };
}

/** `--dashboard`: the step under way, live; at the end, capacity.html itself. */
interface LiveSearch {
  dashboard: Dashboard;
  onStepStart: NonNullable<CapacityOptions['onStepStart']>;
}

async function liveSearch(s: Settings, io: CliIo, runId: string): Promise<LiveSearch | undefined> {
  if (!s.dashboard) return undefined;
  let step: { title: string; session: LiveSummarySource } | undefined;
  const dashboard = await startDashboard(s.dashboard, io, `jobstorm capacity ${runId}`, () => {
    const summary = step?.session.liveSummary();
    return summary && step ? { summary, running: true, title: step.title } : undefined;
  });
  return {
    dashboard,
    onStepStart: (start, session) => {
      step = {
        title: `jobstorm capacity: step ${String(start.index)} at ${String(start.rate)}/s (${start.stage})`,
        session,
      };
    },
  };
}

async function execute(args: CapacityArgs, io: CliIo): Promise<ExitCode> {
  const s = await settle(args, io);
  for (const note of s.notes) io.err(`jobstorm capacity: ${note}`);
  const runId = runIdFor(`capacity-${s.scenario.name}`, clockOf(io).epochNow());
  const out = resolve(args.out ?? join('reports', runId));
  const live = await liveSearch(s, io, runId);
  try {
    return await search(args, io, s, { runId, out, live });
  } finally {
    await live?.dashboard.close();
  }
}

async function search(
  args: CapacityArgs,
  io: CliIo,
  s: Settings,
  at: { runId: string; out: string; live: LiveSearch | undefined },
): Promise<ExitCode> {
  const { runId, out } = at;
  const workers = new WorkerFigures();
  const reached = await reach(s, io, out, workers);
  const { target, emulator } = reached;
  const mode = args.mode ?? 'binary';
  if (!args.quiet)
    announce(s, io, mode, emulator ? `the embedded emulator (${target.baseUrl})` : target.baseUrl);
  // Every step's records, warm-ups and all, so a dashboard follows the search as it climbs.
  const live = startLiveExports(s.exports, { runId, scenario: s.scenario, io });
  const onStepStart = at.live?.onStepStart;
  let report: CapacityReport;
  let exportStats: ExportSummary[] | undefined;
  try {
    report = await findCapacity({
      scenario: s.scenario,
      target,
      slo: s.slo,
      steps: s.steps,
      mode,
      clock: clockOf(io),
      runId,
      interrupt: io.interrupt,
      ...(io.generatorProbe ? { generatorProbe: io.generatorProbe } : { cpu: readProcessCpu }),
      ...(live ? { exports: live } : {}),
      resolution: args.resolution,
      ...(args.quiet ? {} : stepOutput(s, io)),
      ...(onStepStart ? { onStepStart } : {}),
    });
  } finally {
    // The last interval is flushed even when the search threw: a dashboard shows how far it got.
    exportStats = await live?.stop();
    await reached.close();
  }
  if (!args.quiet) clearLiveLine(io);
  if (exportStats) report.exports = exportStats;
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  await writeCapacityReports(report, out, stepSummary ? { stepSummaryPath: stepSummary } : {});
  // The page becomes capacity.html, as written.
  at.live?.dashboard.finishPage(renderCapacityHtml(report));
  if (workers.stats) await writeWorkersJson(out, workers.stats);
  if (!args.quiet) io.out(renderCapacityText(report));
  io.out(`reports: ${out}`);
  return exitOf(report, target.baseUrl, io);
}

/** What `capacity` does once its arguments parsed; loaded only when the command runs. */
export const capacityAction: Pick<JobstormCommand<CapacityArgs>, 'run'> = {
  run: execute,
};
