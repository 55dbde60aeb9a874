import { join, resolve } from 'node:path';
import { CHECK_CATALOG } from '../../check/catalog.js';
import { Checker } from '../../check/checker.js';
import { loadOpenApiRules } from '../../check/openapi-rules.js';
import { parseTolerances } from '../../check/tolerance-options.js';
import type { Tolerances } from '../../check/tolerances.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import type { JobstormRecord, RunRecord } from '../../core/record.js';
import { TurnBatch } from '../../core/turn-batch.js';
import { RunMetrics } from '../../metrics/run-metrics.js';
import { renderTerminalSummary } from '../../report/report-writer.js';
import { buildSummary } from '../../report/summary-builder.js';
import { VERDICT_EXIT, type RunEnd } from '../../report/verdict.js';
import { parseThresholds, type Threshold } from '../../report/threshold.js';
import {
  DEFAULT_GRACEFUL_STOP_MS,
  type ProgressSnapshot,
  type RunOutcome,
  type ShardSpec,
  type Target,
} from '../../runner/run-options.js';
import { runScenario } from '../../runner/runner.js';
import { runScenarioThreaded } from '../../runner/threaded-run.js';
import { durationIssue, formatDuration, parseDuration } from '../../scenario/duration.js';
import {
  capStepTimeouts,
  fitDuration,
  scaleRates,
  totalDurationMs,
  withWarmup,
} from '../../scenario/phase-scaling.js';
import type { Scenario } from '../../scenario/scenario.js';
import type { WorkerSpec } from '../../scenario/worker-schema.js';
import type { ExternalPoolSnapshot } from '../../emulator/index.js';
import { parseShard } from '../../schedule/shard.js';
import type { CliIo, JobstormCommand } from '../command.js';
import type { RunArgs } from './run.js';
import { collect, loadScenarioInto } from '../run/collect.js';
import { progressLine } from '../run/progress-line.js';
import { parseExportSettings, type ExportSettings } from '../run/export-settings.js';
import { startLiveExports } from '../run/live-export.js';
import { RunOutputs } from '../run/run-outputs.js';
import { remoteTarget, resolveTarget } from '../run/target.js';
import { workersSummary, writeWorkersJson } from '../run/worker-report.js';
import { readProcessCpu } from '../run/process-cpu.js';
import {
  guardWorkerProcesses,
  readWorkers,
  workerEmulatorOptions,
  workerSpecFor,
} from '../run/worker-target.js';

interface Settings {
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
}

/** Validates every flag and the scenario at once; nothing is sent before this passes. */
async function settle(args: RunArgs, io: CliIo): Promise<Settings> {
  const issues: ConfigIssue[] = [];
  let scenario = await loadScenarioInto(issues, args.scenario, io.env);
  let shard: ShardSpec | undefined;
  if (args.shard !== undefined) {
    shard = parseShard(args.shard);
    if (!shard)
      issues.push({ where: '--shard', message: `expected i/n with 1 ≤ i ≤ n, got "${args.shard}"` });
  }
  const workers = args.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    issues.push({
      where: '--workers',
      message: `expected a whole number from 1 to 64, got ${String(args.workers)}`,
    });
  if (workers > 1 && shard)
    issues.push({
      where: '--workers',
      message: '--workers runs its own shards; do not combine it with --shard',
    });
  let gracefulStopMs: number | undefined;
  if (args['graceful-stop'] !== undefined) {
    gracefulStopMs = parseDuration(args['graceful-stop']);
    if (gracefulStopMs === undefined || gracefulStopMs < 0)
      issues.push({
        where: '--graceful-stop',
        message:
          durationIssue(args['graceful-stop']) ??
          `expected a duration like 10s or 0s, got "${args['graceful-stop']}"`,
      });
  }
  let durationMs: number | undefined;
  if (args.duration !== undefined) {
    durationMs = parseDuration(args.duration);
    if (durationMs === undefined || durationMs <= 0)
      issues.push({
        where: '--duration',
        message:
          durationIssue(args.duration) ?? `expected a duration like 30s, 2m or 500ms, got "${args.duration}"`,
      });
  }
  let warmupMs: number | undefined;
  if (args.warmup !== undefined) {
    warmupMs = parseDuration(args.warmup);
    if (warmupMs === undefined || warmupMs < 0)
      issues.push({
        where: '--warmup',
        message: durationIssue(args.warmup) ?? `expected a duration like 5s or 0s, got "${args.warmup}"`,
      });
  }
  const scale = args['rate-scale'];
  if (scale !== undefined && !(scale > 0 && Number.isFinite(scale)))
    issues.push({ where: '--rate-scale', message: `expected a positive number, got ${String(scale)}` });
  const tolerances = collect(issues, () => parseTolerances(args.tolerance ?? []));
  const remoteUrl = args.target ?? io.env.JOBSTORM_TARGET;
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
  const apiKey = args['api-key'] ?? io.env.JOBSTORM_API_KEY;
  const remote =
    remoteUrl === undefined || !scenario
      ? undefined
      : remoteTarget(
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
  const loaded = scenario;
  const thresholds = collect(issues, () =>
    parseThresholds([
      ...(loaded?.thresholds ?? []).map((expression, i) => ({
        expression,
        where: `${loaded?.source ?? ''}: thresholds[${String(i)}]`,
      })),
      ...(args.threshold ?? []).map((expression) => ({ expression, where: '--threshold' })),
    ]),
  );
  const exports = collect(issues, () => parseExportSettings(args, loaded, io.env));
  const worker = scenario ? workerSpecFor(scenario, args.worker, issues, remoteUrl !== undefined) : undefined;
  if (issues.length > 0 || !scenario || !thresholds || !tolerances || !exports) throw new ConfigError(issues);
  if (durationMs !== undefined)
    scenario = capStepTimeouts(
      fitDuration(scenario, durationMs),
      durationMs + (gracefulStopMs ?? DEFAULT_GRACEFUL_STOP_MS),
    );
  if (warmupMs !== undefined) {
    scenario = withWarmup(scenario, warmupMs);
    const total = totalDurationMs(scenario.phases);
    if (warmupMs > 0 && warmupMs >= total)
      throw new ConfigError([
        {
          where: '--warmup',
          message: `must be shorter than the phases (${formatDuration(total)} in all${durationMs === undefined ? '' : ' after --duration'}), or nothing is measured`,
        },
      ]);
  }
  if (scale !== undefined) scenario = scaleRates(scenario, scale);
  if (args.auth) scenario = { ...scenario, target: { ...scenario.target, auth: args.auth } };
  return {
    scenario,
    workers,
    thresholds,
    tolerances,
    exports,
    ...(shard ? { shard } : {}),
    ...(remote ? { remote } : {}),
    ...(worker ? { worker } : {}),
    ...(gracefulStopMs === undefined ? {} : { gracefulStopMs }),
  };
}

function runIdFor(scenario: Scenario, shard: ShardSpec | undefined): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${scenario.name}-${stamp}${shard ? `-shard${String(shard.index)}of${String(shard.count)}` : ''}`;
}

async function execute(args: RunArgs, io: CliIo): Promise<ExitCode> {
  const { scenario, shard, workers, thresholds, tolerances, exports, remote, worker, gracefulStopMs } =
    await settle(args, io);
  const openapi = args.openapi === undefined ? undefined : await loadOpenApiRules(args.openapi);
  // Issue 12: --out is proven writable before the emulator starts and before anything is sent.
  const runId = runIdFor(scenario, shard);
  const out = resolve(args.out ?? join('reports', runId));
  const outputs = new RunOutputs(out, args.record === true, io.interrupt, (text) => io.err(text));
  const emulatorOptions = worker ? workerEmulatorOptions(worker, io.env, out) : undefined;
  const guard = worker ? guardWorkerProcesses() : undefined;
  const resolved = remote
    ? { target: remote }
    : await resolveTarget({
        scenario,
        ...(args.fault ? { fault: args.fault } : {}),
        ...(emulatorOptions ? { emulatorOptions } : {}),
        ...(guard ? { processGroups: guard.groups } : {}),
      }).catch((err: unknown) => {
        guard?.release();
        outputs.discard();
        throw err;
      });
  const { emulator } = resolved;
  const target = args['exclusive-endpoint']
    ? { ...resolved.target, exclusiveEndpoint: true }
    : resolved.target;

  const metrics = new RunMetrics(scenario.warmupMs === undefined ? {} : { warmupMs: scenario.warmupMs });
  const live = startLiveExports(exports, {
    runId,
    scenario,
    ...(args.shard ? { shard: args.shard } : {}),
    io,
  });
  let checker: Checker | undefined;
  let runRecord: RunRecord | undefined;
  let violations = 0;
  // The checker takes each turn's records together, after the turn's requests went out (see TurnBatch).
  const toCheck = new TurnBatch<JobstormRecord>((records) => {
    for (const r of records) checker?.add(r);
  });
  const onRecord = (r: JobstormRecord): void => {
    if (r.type === 'run') {
      runRecord ??= r;
      if (args.check !== false)
        checker ??= new Checker(r, {
          tolerances,
          ...(openapi ? { openapi } : {}),
          onViolation: (v) => {
            violations++;
            metrics.addViolation(v);
            live?.addViolation(v);
          },
        });
    }
    metrics.add(r);
    live?.add(r);
    if (checker) toCheck.push(r);
    outputs.add(r);
  };
  const onProgress = args.quiet
    ? undefined
    : (p: ProgressSnapshot): void => {
        if (io.isTty) io.liveLine?.(progressLine(p, violations, metrics.jobCounts()));
        else if (Math.round(p.elapsedMs / 1000) % 5 === 0)
          io.err(progressLine(p, violations, metrics.jobCounts()));
      };
  if (!args.quiet)
    io.err(
      `jobstorm: running ${scenario.name} against ${emulator ? `the embedded emulator (${target.baseUrl})` : target.baseUrl}${shard ? ` as shard ${String(shard.index)}/${String(shard.count)}` : ''}${workers > 1 ? ` with ${String(workers)} worker threads` : ''}`,
    );

  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  // Issue 12: a second Ctrl-C still flushes records and writes the reports, without the checks' finish.
  outputs.whenForcedToExit(
    () =>
      runRecord &&
      buildSummary({
        run: runRecord,
        metrics,
        thresholds,
        durationMs: Date.now() - runRecord.startedAtMs,
        end: 'interrupted',
      }),
    stepSummary,
  );
  let outcome: RunOutcome;
  let workerStats: ExternalPoolSnapshot | undefined;
  try {
    // Live, even with --quiet: from then on the latencies are partly jobstorm's own (issue 17).
    const onGeneratorLimited = (message: string): void => {
      if (io.isTty && !args.quiet) io.liveLine?.('');
      io.err(`jobstorm: warning: ${message}`);
    };
    const common = {
      scenario,
      target,
      runId,
      onRecord,
      onGeneratorLimited,
      interrupt: outputs.interrupt,
      ...(onProgress ? { onProgress } : {}),
      ...(shard ? { shard } : {}),
      ...(gracefulStopMs === undefined ? {} : { gracefulStopMs }),
    };
    // One preflight per run: shard threads and further shards trust the first.
    const checkFirst =
      args.preflight !== false && workers === 1 && (shard === undefined || shard.index === 1);
    outcome =
      workers > 1
        ? await runScenarioThreaded({ ...common, workers, cpu: readProcessCpu })
        : await runScenario({ ...common, preflight: checkFirst, cpu: readProcessCpu });
  } finally {
    if (worker && emulator) workerStats = await readWorkers(emulator);
    await emulator?.close();
    guard?.release();
  }
  if (io.isTty && !args.quiet) io.liveLine?.('');

  toCheck.flush();
  const result = checker?.finish();
  await outputs.closeRecords();
  if (!runRecord) throw new Error('the runner emitted no run record');
  const fatal = outcome.preflight?.fatal;
  if (fatal?.kind === 'key-refused') {
    io.err(`jobstorm: preflight: ${fatal.message}. Check --api-key / JOBSTORM_API_KEY and --auth.`);
    return ExitCode.Usage;
  }
  const end: RunEnd =
    outputs.failure !== undefined
      ? 'output-failed'
      : outcome.failure !== undefined
        ? 'shard-failed'
        : outcome.interrupted
          ? 'interrupted'
          : outcome.targetUnreachable
            ? 'unreachable'
            : 'completed';
  if (outcome.failure !== undefined)
    io.err(
      `jobstorm: ${outcome.failure}; the other worker threads were stopped and the reports show what was measured until then`,
    );
  const summary = buildSummary({
    run: runRecord,
    metrics,
    checks: checker ? CHECK_CATALOG.map((c) => c.id) : [],
    ...(checker
      ? { checkDescriptions: Object.fromEntries(CHECK_CATALOG.map((c) => [c.id, c.description])) }
      : {}),
    thresholds,
    durationMs: outcome.durationMs,
    end,
    ...(result ? { coverage: result.coverage } : {}),
    ...(outcome.preflight ? { preflight: outcome.preflight.findings } : {}),
    ...(outcome.iterationsCut ? { iterationsCut: outcome.iterationsCut } : {}),
    ...(outcome.connectionWait ? { connectionWait: outcome.connectionWait } : {}),
    generator: outcome.generator,
    ...(outcome.failure === undefined ? {} : { failure: outcome.failure }),
  });
  if (live) summary.exports = await live.stop();
  if (workerStats) summary.workers = workersSummary(workerStats);
  outputs.writeReports(summary, stepSummary);
  if (workerStats) await writeWorkersJson(out, workerStats);
  if (!args.quiet) io.out(renderTerminalSummary(summary));
  io.out(`reports: ${out}`);

  if (outcome.targetUnreachable)
    io.err(
      `jobstorm: the target ${target.baseUrl} could not be reached (no request got an answer); the report above shows the errors.`,
    );
  // Issue 12: a run stopped by a failed write, or a report not written, is exit 3, not a Ctrl-C.
  return end === 'output-failed' || end === 'shard-failed' || outputs.reportsFailed
    ? ExitCode.Aborted
    : VERDICT_EXIT[summary.verdict.status];
}

/** What `run` does once its arguments parsed; loaded only when the command runs. */
export const runAction: Pick<JobstormCommand<RunArgs>, 'run'> = {
  run: execute,
};
