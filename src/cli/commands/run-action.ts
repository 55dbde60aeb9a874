import { join, resolve } from 'node:path';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import { systemClock } from '../../core/clock.js';
import { ExitCode } from '../../core/exit-code.js';
import type { ExternalPoolSnapshot } from '../../emulator/index.js';
import type { EmulatorHandle } from '../../emulator/start.js';
import { renderTerminalSummary } from '../../report/report-writer.js';
import { VERDICT_EXIT } from '../../report/verdict.js';
import type { RunOutcome, Target } from '../../runner/run-options.js';
import { RunSession } from '../../session/run-session.js';
import type { SessionSinks } from '../../session/session-options.js';
import type { CliIo, JobstormCommand } from '../command.js';
import { phasePlanOf } from '../run/phase-plan.js';
import { clearLiveLine, progressSink } from '../run/progress-sink.js';
import { startLiveExports } from '../run/live-export.js';
import { readProcessCpu } from '../run/process-cpu.js';
import { RunOutputs } from '../run/run-outputs.js';
import { settleRun, type RunSettings } from '../run/run-settings.js';
import { resolveTarget } from '../run/target.js';
import { workersSummary, writeWorkersJson } from '../run/worker-report.js';
import { guardWorkerProcesses, readWorkers, workerEmulatorOptions } from '../run/worker-target.js';
import type { RunArgs } from './run-args.js';
import { runIdFor } from '../../session/run-id.js';
import { HALT_EXIT, startTogether } from '../run/together.js';

/** Where the run goes: the remote target, or the embedded emulator (with its worker processes' guard). */
interface Reached {
  target: Target;
  emulator?: EmulatorHandle;
  release(): void;
}

async function reach(args: RunArgs, s: RunSettings, io: CliIo, outputs: RunOutputs): Promise<Reached> {
  const emulatorOptions = s.worker ? workerEmulatorOptions(s.worker, io.env, outputs.out) : undefined;
  const guard = s.worker ? guardWorkerProcesses() : undefined;
  const release = (): void => guard?.release();
  const resolved = s.remote
    ? { target: s.remote }
    : await resolveTarget({
        scenario: s.scenario,
        ...(args.fault ? { fault: args.fault } : {}),
        ...(emulatorOptions ? { emulatorOptions } : {}),
        ...(guard ? { processGroups: guard.groups } : {}),
      }).catch((err: unknown) => {
        release();
        outputs.discard();
        throw err;
      });
  const target = {
    ...resolved.target,
    ...(args['exclusive-endpoint'] ? { exclusiveEndpoint: true } : {}),
    ...(s.localAddress === undefined ? {} : { localAddress: s.localAddress }),
  };
  return { target, release, ...(resolved.emulator ? { emulator: resolved.emulator } : {}) };
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

function announce(args: RunArgs, io: CliIo, s: RunSettings, reached: Reached): void {
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
  if (fatal?.kind === 'key-refused') {
    io.err(`jobstorm: preflight: ${fatal.message}. Check --api-key / JOBSTORM_API_KEY and --auth.`);
    return ExitCode.Usage;
  }
  if (outcome.failure !== undefined)
    io.err(
      `jobstorm: ${outcome.failure}; the other worker threads were stopped and the reports show what was measured until then`,
    );
  const summary = await session.finish(outputs.failure !== undefined ? { end: 'output-failed' } : {});
  if (workerStats) summary.workers = workersSummary(workerStats);
  outputs.writeReports(summary, r.stepSummary);
  if (workerStats) await writeWorkersJson(outputs.out, workerStats);
  if (!args.quiet) io.out(renderTerminalSummary(summary));
  io.out(`reports: ${outputs.out}`);
  const halt = session.halt;
  if (halt) {
    io.err(`jobstorm: ${halt.message}`);
    return HALT_EXIT[halt.exit];
  }
  const by = summary.run.stoppedBy;
  if (by) io.err(`jobstorm: stopped by shard ${by.shard}: ${by.reason}`);
  if (outcome.targetUnreachable)
    io.err(
      `jobstorm: the target ${r.target.baseUrl} could not be reached (no request got an answer); the report above shows the errors.`,
    );
  // Issue 12: a run stopped by a failed write, or a report not written, is exit 3, not a Ctrl-C.
  const end = summary.run.end;
  return end === 'output-failed' || end === 'shard-failed' || outputs.reportsFailed
    ? ExitCode.Aborted
    : VERDICT_EXIT[summary.verdict.status];
}

async function execute(args: RunArgs, io: CliIo): Promise<ExitCode> {
  const s = await settleRun(args, io);
  const together = startTogether(s.together, s.shard);
  const openapi = args.openapi === undefined ? undefined : await loadOpenApiRules(args.openapi);
  // Issue 12: --out is proven writable before the emulator starts and before anything is sent.
  const runId = runIdFor(s.scenario.name, s.shard);
  const out = resolve(args.out ?? join('reports', runId));
  const outputs = new RunOutputs(out, args.record === true, io.interrupt, (text) => io.err(text));
  const reached = await reach(args, s, io, outputs);
  const { target, emulator } = reached;
  const live = startLiveExports(s.exports, {
    runId,
    scenario: s.scenario,
    ...(args.shard ? { shard: args.shard } : {}),
    io,
  });
  const session = new RunSession({
    scenario: s.scenario,
    target,
    runId,
    clock: systemClock,
    thresholds: s.thresholds,
    checks: args.check === false ? false : { tolerances: s.tolerances, ...(openapi ? { openapi } : {}) },
    ...(live ? { exports: { sink: live, stopAtFinish: true } } : {}),
    sinks: terminalSinks(args, io, outputs, s),
    interrupt: outputs.interrupt,
    workers: s.workers,
    preflight: args.preflight !== false,
    cpu: readProcessCpu,
    ...(s.shard ? { shard: s.shard } : {}),
    ...(s.gracefulStopMs === undefined ? {} : { gracefulStopMs: s.gracefulStopMs }),
    ...(together ? { together } : {}),
  });
  announce(args, io, s, reached);
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  // Issue 12: a second Ctrl-C still flushes records and writes the reports, without the checks' finish.
  outputs.whenForcedToExit(() => session.partialSummary(), stepSummary);
  let outcome: RunOutcome;
  let workerStats: ExternalPoolSnapshot | undefined;
  try {
    outcome = await session.run();
  } finally {
    if (s.worker && emulator) workerStats = await readWorkers(emulator);
    await emulator?.close();
    reached.release();
  }
  if (!args.quiet) clearLiveLine(io);
  return conclude({ args, io, session, outputs, outcome, target, workerStats, stepSummary });
}

/** What `run` does once its arguments parsed; loaded only when the command runs. */
export const runAction: Pick<JobstormCommand<RunArgs>, 'run'> = {
  run: execute,
};
