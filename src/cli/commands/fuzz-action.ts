import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import { parseFaults } from '../../emulator/faults.js';
import { fuzz, type FuzzBudget, type FuzzOptions, type FuzzResult } from '../../fuzz/fuzzer.js';
import { systemClock } from '../../core/clock.js';
import { ManualClock } from '../../core/manual-clock.js';
import { ClockDriver } from '../run/clock-driver.js';
import { FUZZ_EMULATOR } from '../../fuzz/fuzz-trial.js';
import { fuzzReportOf, type FuzzVerdict } from '../../fuzz/fuzz-report.js';
import { edgeLines, findingLines, verdictLine } from '../../fuzz/fuzz-markdown.js';
import { FUZZ_FILES, writeFuzzReports } from '../../fuzz/fuzz-writer.js';
import { DEFAULT_PLAN_LIMITS, type JobPlanLimits } from '../../fuzz/job-plan.js';
import { scenarioOf } from '../../library/scenario-source.js';
import { durationIssue, parseDuration } from '../../scenario/duration.js';
import { runIdFor } from '../../session/run-id.js';
import { clockOf, type CliIo, type JobstormCommand } from '../command.js';
import { clearLiveLine } from '../run/progress-sink.js';
import type { FuzzArgs } from './fuzz-args.js';

/** Each read of a manual clock costs a microsecond, so two exchanges in a row never tie (ManualClock). */
const READ_COST_MS = 0.001;

/** The fuzz's budget when no flag sets one. */
const DEFAULT_DURATION_MS = 60_000;

interface FuzzSettings {
  seed: number;
  budget: FuzzBudget;
  limits: JobPlanLimits;
  shrinkRuns: number;
  faults: string[];
  /** --target or $JOBSTORM_TARGET; none: the embedded emulator. */
  remote?: string;
}

function integer(issues: ConfigIssue[], where: string, v: number | undefined, min: number, max: number): void {
  if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max))
    issues.push({ where, message: `expected a whole number from ${String(min)} to ${String(max)}, got ${String(v)}` });
}

function budgetOf(args: FuzzArgs, issues: ConfigIssue[]): FuzzBudget {
  let timeMs: number | undefined;
  if (args.duration !== undefined) {
    timeMs = parseDuration(args.duration);
    if (timeMs === undefined || timeMs <= 0) {
      issues.push({
        where: '--duration',
        message: durationIssue(args.duration) ?? `expected a duration like 60s, 10m or 500ms, got "${args.duration}"`,
      });
    }
  }
  integer(issues, '--sequences', args.sequences, 1, Number.MAX_SAFE_INTEGER);
  if (timeMs === undefined && args.sequences === undefined) timeMs = DEFAULT_DURATION_MS;
  return {
    ...(timeMs === undefined ? {} : { timeMs }),
    ...(args.sequences === undefined ? {} : { sequences: args.sequences }),
    ...(args['first-finding'] ? { firstFinding: true } : {}),
  };
}

function targetIssues(args: FuzzArgs, remote: string | undefined, issues: ConfigIssue[]): string[] {
  const faults = args.fault ?? [];
  if (faults.length > 0 && remote !== undefined)
    issues.push({ where: '--fault', message: 'faults switch on the embedded emulator; they cannot apply to a remote target' });
  if (args.routes !== undefined && remote === undefined)
    issues.push({ where: '--routes', message: 'applies to a remote target only: give --target (or set JOBSTORM_TARGET)' });
  if (args['real-time'] && remote !== undefined)
    issues.push({ where: '--real-time', message: 'applies to the embedded emulator only: a remote target runs on its own clock' });
  const parsed = parseFaults(faults, '--fault');
  issues.push(...parsed.issues);
  return faults;
}

/** The background load's scenario, loaded once to name its problems with the flags'. */
async function loadIssues(file: string | undefined, issues: ConfigIssue[]): Promise<void> {
  if (file === undefined) return;
  try {
    await scenarioOf({ scenarioFile: file });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    issues.push(...err.issues.map((i) => ({ ...i, where: `--load ${i.where}` })));
  }
}

/** Every flag checked at once; nothing is sent when one is wrong. */
async function settle(args: FuzzArgs, io: CliIo): Promise<FuzzSettings> {
  const issues: ConfigIssue[] = [];
  await loadIssues(args.load, issues);
  const remote = args.target ?? io.env.JOBSTORM_TARGET;
  integer(issues, '--seed', args.seed, -(2 ** 31), 2 ** 31 - 1);
  integer(issues, '--max-jobs', args['max-jobs'], 1, 100);
  integer(issues, '--max-calls', args['max-calls'], 0, 50);
  integer(issues, '--shrink-runs', args['shrink-runs'], 0, 100_000);
  const budget = budgetOf(args, issues);
  const faults = targetIssues(args, remote, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    // A new seed each time unless given: printed, so any fuzz can be run again.
    seed: args.seed ?? Math.floor(Math.random() * 2 ** 31),
    budget,
    limits: {
      ...DEFAULT_PLAN_LIMITS,
      ...(args['max-jobs'] === undefined ? {} : { maxJobs: args['max-jobs'] }),
      ...(args['max-calls'] === undefined ? {} : { maxActions: args['max-calls'] }),
    },
    shrinkRuns: args['shrink-runs'] ?? 200,
    faults,
    ...(remote === undefined ? {} : { remote }),
  };
}

/** The progress of the fuzz: a live line on a terminal, a line each 100 trials elsewhere. */
function progress(io: CliIo, quiet: boolean | undefined): Pick<FuzzOptions, 'onTrial' | 'onFinding'> {
  if (quiet) return {};
  return {
    onTrial: (p) => {
      const line = `trial ${String(p.trials)}: ${String(p.sequences)} sequences, ${String(p.calls)} calls, ${String(p.findings)} findings`;
      if (io.isTty) io.liveLine?.(line);
      else if (p.trials % 100 === 0) io.err(line);
    },
    onFinding: (id, trial) => {
      clearLiveLine(io);
      io.err(`${id} fired in trial ${String(trial)}: shrinking it`);
    },
  };
}

/**
 * Runs the fuzz. On the embedded emulator its trials run on a manual clock shared with the emulator
 * and moved whenever nothing is under way, so a trial's seconds (a ttl, a webhook's wait, a late
 * call) pass as fast as loopback answers; the budget's time stays the wall's. An in-process
 * caller's clock (a test's) is used as it is, for both.
 */
function fuzzOn(o: FuzzOptions, io: CliIo, virtual: boolean): Promise<FuzzResult> {
  if (io.clock) return fuzz({ ...o, clock: io.clock });
  if (!virtual) return fuzz(o);
  const clock = new ManualClock(0, systemClock.epochNow(), READ_COST_MS);
  const driver = new ClockDriver(clock, { maxSteps: Infinity, maxRealMs: Infinity });
  return driver.run(fuzz({ ...o, clock, budgetClock: systemClock }));
}

const EXIT: Record<FuzzVerdict, ExitCode> = {
  passed: ExitCode.Ok,
  failed: ExitCode.Failed,
  interrupted: ExitCode.Interrupted,
  aborted: ExitCode.Aborted,
  inconclusive: ExitCode.Inconclusive,
};

/** `jobstorm fuzz`: trials of generated jobs against the target, each new finding shrunk and written as a scenario. */
export const fuzzAction: Pick<JobstormCommand<FuzzArgs>, 'run'> = {
  run: async (args, io) => {
    const s = await settle(args, io);
    const clock = clockOf(io);
    // As given (or relative to here) in what is printed: a reproduction command to copy.
    const shown = args.out ?? join('reports', runIdFor('fuzz', clock.epochNow()));
    const out = resolve(shown);
    const target = s.remote ?? 'the embedded emulator';
    io.out(`jobstorm fuzz: seed ${String(s.seed)} against ${target} (the same seed tries the same sequences: --seed ${String(s.seed)})`);
    const trials = await mkdtemp(join(tmpdir(), 'jobstorm-fuzz-'));
    const apiKey = args['api-key'] ?? io.env.JOBSTORM_API_KEY;
    const settings = {
      faults: s.faults,
      emulator: FUZZ_EMULATOR,
      dir: trials,
      signal: io.interrupt,
      ...(s.remote === undefined ? {} : { target: s.remote }),
      ...(apiKey ? { apiKey } : {}),
      ...(args['management-url'] === undefined ? {} : { managementUrl: args['management-url'] }),
      ...(args.routes === undefined ? {} : { routes: args.routes }),
      ...(args['exclusive-endpoint'] ? { exclusiveEndpoint: true } : {}),
      ...(args.load === undefined ? {} : { load: resolve(args.load) }),
    };
    try {
      const options: FuzzOptions = {
        ...settings,
        seed: s.seed,
        budget: s.budget,
        limits: s.limits,
        maxShrinkRuns: s.shrinkRuns,
        ...progress(io, args.quiet),
      };
      const result = await fuzzOn(options, io, s.remote === undefined && !args['real-time']);
      clearLiveLine(io);
      const report = fuzzReportOf(result, {
        target,
        faults: s.faults,
        budget: s.budget,
        ...(args.load === undefined ? {} : { load: args.load }),
      });
      await writeFuzzReports(report, result.findings, settings, out);
      io.out(verdictLine(report));
      for (const f of report.findings) io.out(findingLines(f, shown).join('\n'));
      if (!args.quiet) io.out(edgeLines(report.edges).join('\n'));
      io.out(`report: ${join(shown, FUZZ_FILES.markdown)}`);
      return EXIT[report.verdict];
    } finally {
      await rm(trials, { recursive: true, force: true });
    }
  },
};
