import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EpochClock } from '../core/clock.js';
import type { JobstormRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import type { JobstormRun, RunJobstormOptions } from '../library/library-options.js';
import { runJobstorm } from '../library/run-jobstorm.js';
import { besideLoad } from './background-load.js';
import type { RouteLayout } from '../library/remote-target.js';
import { DEFAULT_GRACEFUL_STOP_MS, type Target } from '../runner/run-options.js';
import type { ScenarioInput } from '../scenario/scenario-schema.js';
import type { FuzzJob } from './job-plan.js';

/*
 * One trial of the fuzzer: its jobs written as a job trace and replayed by a scenario of one replay
 * phase and one traceJob step, every exchange judged by the run's checks. The same scenario, with
 * the shrunk trace beside it, is the reproduction the fuzzer writes: what a trial ran is what
 * `jobstorm run` of that file runs.
 */

/** Where and how trials run. */
export interface TrialSettings {
  /** None: the embedded emulator, a fresh one each trial (started and closed by the run). */
  target?: string | Target;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  /** The endpoint serves no one else (the embedded emulator's always does). */
  exclusiveEndpoint?: boolean;
  /** Emulator faults (embedded emulator only). */
  faults: readonly string[];
  /** The emulator's settings in each trial's scenario (embedded emulator only). */
  emulator: Readonly<Record<string, unknown>>;
  clock?: EpochClock;
  /** Where trial traces are written. */
  dir: string;
  /** A scenario file run against the same target beside each trial (its findings are not judged). */
  load?: string;
  signal?: AbortSignal;
}

/** The emulator of a trial: one worker always up, so lowPriority jobs run; quick cold starts. */
export const FUZZ_EMULATOR = { workersMin: 1, workersMax: 4, coldStart: '200ms' } as const;

/** A check that fired in a trial, with the examples (records and timelines) that show it. */
export interface TrialFinding {
  id: string;
  count: number;
  examples: Violation[];
}

export interface TrialResult {
  /** Error findings, by check id. */
  findings: TrialFinding[];
  records: JobstormRecord[];
  /** Observations judged per check id (coverage of the checks). */
  judged: Readonly<Record<string, number>>;
  /** The run ended early (interrupted, target unreachable). */
  aborted: boolean;
  /** Calls the background load made beside it. */
  loadCalls: number;
}

/** The job trace of a trial: one JSON line a job. */
export function traceText(jobs: readonly FuzzJob[]): string {
  return jobs.map((j) => JSON.stringify(j)).join('\n') + '\n';
}

/** How long after its last call a job may still be answering (a 15 s job queued behind others). */
const SETTLE_MARGIN_MS = 20_000;

/**
 * How long the run must go on after the trace's last arrival, beyond the default graceful stop
 * (30 s), for every job's last call to be made: a late call (a ttl's or a webhook wait's end) can
 * come a minute after its job. A phase without arrivals holds the run open that long, so the
 * scenario replays it all under `jobstorm run` with no flag.
 */
function settleMs(jobs: readonly FuzzJob[]): number {
  let lastArrival = 0;
  let end = 0;
  for (const j of jobs) {
    lastArrival = Math.max(lastArrival, j.at);
    end = Math.max(end, j.at + (j.actions?.at(-1)?.at ?? 0));
  }
  return Math.max(0, end + SETTLE_MARGIN_MS - lastArrival - DEFAULT_GRACEFUL_STOP_MS);
}

/** The scenario that replays `jobs`, written at `traceFile` (relative to the scenario, or absolute). */
export function trialScenario(
  traceFile: string,
  jobs: readonly FuzzJob[],
  settings: Pick<TrialSettings, 'faults' | 'emulator' | 'target'>,
): ScenarioInput {
  const embedded = settings.target === undefined;
  const settle = settleMs(jobs);
  return {
    name: 'fuzz',
    ...(embedded ? { emulator: { ...settings.emulator, faults: [...settings.faults] } } : {}),
    phases: [
      { name: 'fuzz', replay: { file: traceFile, format: 'jobstorm' } },
      ...(settle > 0 ? [{ name: 'settle', duration: `${String(Math.ceil(settle / 1000))}s`, rate: 0 }] : []),
    ],
    flows: [{ name: 'fuzz', steps: [{ traceJob: null }] }],
  };
}

/** Runs the trial's jobs; `first` runs the preflight (the target's key and routes, once). */
export async function runTrial(
  jobs: readonly FuzzJob[],
  settings: TrialSettings,
  first: boolean,
): Promise<TrialResult> {
  // Trials run one at a time, so each writes over the last one's trace.
  const file = join(settings.dir, 'trial.jsonl');
  await writeFile(file, traceText(jobs));
  const scenario = trialScenario(file, jobs, settings);
  const records: JobstormRecord[] = [];
  const options: RunJobstormOptions = {
    scenario,
    ...(settings.target === undefined ? {} : { target: settings.target }),
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(settings.managementUrl === undefined ? {} : { managementUrl: settings.managementUrl }),
    ...(settings.routes === undefined ? {} : { routes: settings.routes }),
    ...(settings.exclusiveEndpoint === undefined ? {} : { exclusiveEndpoint: settings.exclusiveEndpoint }),
    ...(settings.clock ? { clock: settings.clock } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
    preflight: first,
    onRecord: (r) => records.push(r),
  };
  if (settings.load === undefined) return resultOf(await runJobstorm(options), records, 0);
  const beside = await besideLoad(options, settings.load);
  return resultOf(beside.run, records, beside.loadCalls);
}

function resultOf(run: JobstormRun, records: JobstormRecord[], loadCalls: number): TrialResult {
  const findings = run.summary.violations
    .filter((v) => v.severity === 'error')
    .map((v) => ({ id: v.id, count: v.count, examples: v.examples }));
  return {
    findings,
    records,
    judged: run.summary.coverage,
    aborted: run.outcome.interrupted || run.exitCode === 3,
    loadCalls,
  };
}
