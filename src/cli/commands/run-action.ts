import { join, resolve } from 'node:path';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import type { ExitCode } from '../../core/exit-code.js';
import type { ExternalPoolSnapshot } from '../../emulator/index.js';
import { reachTarget, type RunTarget } from '../../library/run-target.js';
import { renderTerminalSummary } from '../../report/report-writer.js';
import type { RunOutcome, Target } from '../../runner/run-options.js';
import { assembleRun } from '../../session/run-assembly.js';
import { endingOf, exitCodeOf, keyRefused } from '../../session/run-exit.js';
import type { RunSession } from '../../session/run-session.js';
import type { RunSessionOptions, SessionSinks } from '../../session/session-options.js';
import { clockOf, type CliIo, type JobstormCommand } from '../command.js';
import { phasePlanOf } from '../run/phase-plan.js';
import { clearLiveLine, progressSink } from '../run/progress-sink.js';
import { startLiveExports } from '../run/live-export.js';
import { readProcessCpu } from '../run/process-cpu.js';
import { RunOutputs } from '../run/run-outputs.js';
import { settleRun, type RunSettings } from '../run/run-settings.js';
import { workersSummary, writeWorkersJson } from '../run/worker-report.js';
import { guardWorkerProcesses, WorkerFigures, workerEmulatorOptions } from '../run/worker-target.js';
import type { RunArgs } from './run-args.js';
import { runIdFor } from '../../session/run-id.js';
import { startTogether } from '../run/together.js';
import type { Dashboard } from '../../dashboard/index.js';
import { startDashboard } from '../run/dashboard-flags.js';
import { ShardLiveFile } from '../../session/barrier/live-file.js';
import { wallClockOf } from '../../session/barrier/wall-clock.js';

/** The target the flags chose, reached through the one assembly; what only the CLI knows is passed in. */
function reach(
  args: RunArgs,
  s: RunSettings,
  io: CliIo,
  outputs: RunOutputs,
  workers: WorkerFigures,
): Promise<RunTarget> {
  const guard = s.worker ? guardWorkerProcesses() : undefined;
  return reachTarget(s.scenario, {
    ...(s.remote ? { remote: s.remote } : {}),
    ...(args.fault ? { faults: args.fault } : {}),
    ...(s.worker ? { emulatorOptions: workerEmulatorOptions(s.worker, io.env, outputs.out) } : {}),
    ...(guard ? { workerGuard: guard } : {}),
    ...(s.worker ? { beforeClose: workers.read } : {}),
    ...(args['exclusive-endpoint'] ? { exclusiveEndpoint: true } : {}),
    localAddress: s.localAddress,
    // An in-process caller's clock (a test's manual one) is the embedded emulator's too.
    ...(io.clock ? { emulatorClock: io.clock } : {}),
  }).catch((err: unknown) => {
    outputs.discard();
    throw err;
  });
}

/** The terminal's part of the run: the progress line and the warnings. */
function terminalSinks(args: RunArgs, io: CliIo, outputs: RunOutputs, s: RunSettings): SessionSinks {
  return {
    record: (r) => outputs.add(r),
    ...(args.quiet ? {} : { progress: progressSink(io, phasePlanOf(s.scenario), args.check !== false) }),
    // Shown even with --quiet: from then on the latencies are partly jobstorm's own (issue 17).
    warning: (message) => {
      if (!args.quiet) clearLiveLine(io);
      io.err(`jobstorm: warning: ${message}`);
    },
  };
}

function announce(args: RunArgs, io: CliIo, s: RunSettings, reached: RunTarget): void {
  if (args.quiet) return;
  const { shard, workers } = s;
  const where = reached.emulator
    ? `the embedded emulator (${reached.target.baseUrl})`
    : reached.target.baseUrl;
  io.err(
    `jobstorm: running ${s.scenario.name} against ${where}${shard ? ` as shard ${String(shard.index)}/${String(shard.count)}` : ''}${workers > 1 ? ` with ${String(workers)} worker threads` : ''}`,
  );
}

interface Ran {
  args: RunArgs;
  dashboard: Dashboard | undefined;
  liveFile: ShardLiveFile | undefined;
  io: CliIo;
  session: RunSession;
  outputs: RunOutputs;
  outcome: RunOutcome;
  target: Target;
  workerStats: ExternalPoolSnapshot | undefined;
  stepSummary: string | undefined;
}

/** After the load: the reports, the terminal summary and the exit code. */
async function conclude(r: Ran): Promise<ExitCode> {
  const { args, io, session, outputs, outcome, workerStats } = r;
  await outputs.closeRecords();
  const fatal = outcome.preflight?.fatal;
  if (fatal && keyRefused(outcome)) {
    io.err(`jobstorm: preflight: ${fatal.message}. Check --api-key / JOBSTORM_API_KEY and --auth.`);
    // Nothing was sent: no reports, but the session still stops its exports.
    return exitCodeOf(endingOf(await session.finish(), outcome));
  }
  if (outcome.failure !== undefined)
    io.err(
      `jobstorm: ${outcome.failure}; the other worker threads were stopped and the reports show what was measured until then`,
    );
  const summary = await session.finish(outputs.failure !== undefined ? { end: 'output-failed' } : {});
  if (workerStats) summary.workers = workersSummary(workerStats);
  outputs.writeReports(summary, r.stepSummary);
  await r.liveFile?.finish(summary);
  // The page becomes the report: the same summary, the same view as report.html.
  r.dashboard?.finish(summary);
  if (workerStats) await writeWorkersJson(outputs.out, workerStats);
  if (!args.quiet) io.out(renderTerminalSummary(summary));
  io.out(`reports: ${outputs.out}`);
  const halt = session.halt;
  if (halt) io.err(`jobstorm: ${halt.message}`);
  else explain(r, summary.run.stoppedBy);
  return exitCodeOf({
    ...endingOf(summary, outcome),
    ...(halt ? { halt } : {}),
    ...(outputs.reportsFailed ? { reportsFailed: true } : {}),
  });
}

/** Why a run that started ended as it did, when another shard stopped it or nothing answered. */
function explain(r: Ran, by: { shard: string; reason: string } | undefined): void {
  if (by) r.io.err(`jobstorm: stopped by shard ${by.shard}: ${by.reason}`);
  if (r.outcome.traceError !== undefined)
    r.io.err(
      `jobstorm: ${r.outcome.traceError}; the arrivals stopped there and the report shows what was measured.`,
    );
  if (r.outcome.targetUnreachable)
    r.io.err(
      `jobstorm: the target ${r.target.baseUrl} could not be reached (no request got an answer); the report above shows the errors.`,
    );
}

interface Prepared {
  together: ReturnType<typeof startTogether>;
  openapi: Awaited<ReturnType<typeof loadOpenApiRules>> | undefined;
}

/** The session's options: the flags' settings, the terminal's sinks, the CLI's CPU reading. */
function sessionOptions(
  args: RunArgs,
  io: CliIo,
  s: RunSettings,
  outputs: RunOutputs,
  p: Prepared & { runId: string },
): Omit<RunSessionOptions, 'target'> {
  const live = startLiveExports(s.exports, {
    runId: p.runId,
    scenario: s.scenario,
    ...(args.shard ? { shard: args.shard } : {}),
    io,
  });
  return {
    scenario: s.scenario,
    runId: p.runId,
    clock: clockOf(io),
    thresholds: s.thresholds,
    checks:
      args.check === false
        ? false
        : { tolerances: s.tolerances, ...(p.openapi ? { openapi: p.openapi } : {}) },
    ...(live ? { exports: { sink: live, stopAtFinish: true } } : {}),
    sinks: terminalSinks(args, io, outputs, s),
    interrupt: outputs.interrupt,
    workers: s.workers,
    preflight: args.preflight !== false,
    ...(io.generatorProbe ? { generatorProbe: io.generatorProbe } : { cpu: readProcessCpu }),
    ...(s.shard ? { shard: s.shard } : {}),
    gracefulStopMs: s.gracefulStopMs,
    ...(p.together ? { together: p.together } : {}),
  };
}

/** `--dashboard`: served before anything starts (a taken port is a configuration error), fed by the session once there is one. */
async function dashboardOf(
  s: RunSettings,
  io: CliIo,
  outputs: RunOutputs,
  runId: string,
  live: () => RunSession | undefined,
): Promise<Dashboard | undefined> {
  if (!s.dashboard) return undefined;
  return startDashboard(s.dashboard, io, `jobstorm live ${runId}`, () => {
    const summary = live()?.liveSummary();
    return summary && { summary, running: true };
  }).catch((err: unknown) => {
    outputs.discard();
    throw err;
  });
}

/** With --barrier, what `jobstorm dashboard <folder>` shows of this shard (written only while a page is open). */
function shardLiveFile(s: RunSettings, io: CliIo, session: RunSession): ShardLiveFile | undefined {
  if (s.together?.kind !== 'barrier') return undefined;
  const file = new ShardLiveFile({
    folder: s.together.folder,
    shard: s.shard ?? { index: 1, count: 1 },
    clock: wallClockOf(clockOf(io)),
    summary: () => session.liveSummary(),
  });
  file.start();
  return file;
}

async function execute(args: RunArgs, io: CliIo): Promise<ExitCode> {
  const s = await settleRun(args, io);
  const together = startTogether(s.together, s.shard, clockOf(io));
  const openapi = args.openapi === undefined ? undefined : await loadOpenApiRules(args.openapi);
  // Issue 12: --out is proven writable before the emulator starts and before anything is sent.
  const runId = runIdFor(s.scenario.name, clockOf(io).epochNow(), s.shard);
  const out = resolve(args.out ?? join('reports', runId));
  const outputs = new RunOutputs(out, args.record === true, io.interrupt, (text) => io.err(text));
  let live: RunSession | undefined;
  const dashboard = await dashboardOf(s, io, outputs, runId, () => live);
  try {
    const workers = new WorkerFigures();
    const { reached, session, run } = await assembleRun({
      reach: () => reach(args, s, io, outputs, workers),
      session: () => sessionOptions(args, io, s, outputs, { together, openapi, runId }),
    });
    live = session;
    const liveFile = shardLiveFile(s, io, session);
    announce(args, io, s, reached);
    const stepSummary = io.env.GITHUB_STEP_SUMMARY;
    // Issue 12: a second Ctrl-C still flushes records and writes the reports, without the checks' finish.
    outputs.whenForcedToExit(() => session.partialSummary(), stepSummary);
    const outcome = await run();
    if (!args.quiet) clearLiveLine(io);
    const { target } = reached;
    const workerStats = workers.stats;
    return await conclude({
      args,
      io,
      session,
      outputs,
      outcome,
      target,
      workerStats,
      stepSummary,
      dashboard,
      liveFile,
    });
  } finally {
    await dashboard?.close();
  }
}

/** What `run` does once its arguments parsed; loaded only when the command runs. */
export const runAction: Pick<JobstormCommand<RunArgs>, 'run'> = {
  run: execute,
};
