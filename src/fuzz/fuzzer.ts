import fc from 'fast-check';
import { systemClock, type EpochClock } from '../core/clock.js';
import type { JobstormRecord } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import { EdgeCoverage, type EdgeTable } from './edge-coverage.js';
import { runTrial, type TrialResult, type TrialSettings } from './fuzz-trial.js';
import { callsOf, DEFAULT_PLAN_LIMITS, trialArb, type FuzzJob, type JobPlanLimits } from './job-plan.js';

/*
 * The fuzzer (issue 50): trials of jobs generated from the contract's model, each run against the
 * target and judged by every check; a check that fires for the first time is shrunk, by fast-check,
 * to the fewest jobs and calls at the simplest times that still make it fire. Trial i draws its
 * jobs from seed + i, so the same seed against the same faithful target tries the same sequences,
 * and a trial can be drawn again alone (to shrink it, or to show it).
 */

export interface FuzzBudget {
  /** Stop once this many jobs (sequences) were tried. */
  sequences?: number;
  /** Stop starting trials once this much time passed (a finding then found is still shrunk). */
  timeMs?: number;
  /** Stop at the first finding (once it is shrunk). */
  firstFinding?: boolean;
}

export interface FuzzOptions extends Omit<TrialSettings, 'clock'> {
  seed: number;
  budget: FuzzBudget;
  limits?: JobPlanLimits;
  /** Most runs spent shrinking one finding. */
  maxShrinkRuns?: number;
  /** The runs' time (a manual one: the embedded emulator's too), and the budget's unless `budgetClock`. */
  clock?: EpochClock;
  /** The time budget's clock: the wall's while the trials run on a driven manual clock. */
  budgetClock?: EpochClock;
  /** After each trial. */
  onTrial?: (progress: FuzzProgress) => void;
  /** A check fired for the first time, in trial `trial`: shrinking starts. */
  onFinding?: (id: string, trial: number) => void;
}

export interface FuzzProgress {
  trials: number;
  sequences: number;
  calls: number;
  findings: number;
}

export interface FuzzFinding {
  id: string;
  /** The trial that first showed it, and the seed that draws that trial alone. */
  trial: number;
  trialSeed: number;
  /** The jobs of the smallest trial that still showed it (the trial's own when not reproduced). */
  jobs: FuzzJob[];
  /** Jobs and calls before and after shrinking. */
  before: { jobs: number; calls: number };
  after: { jobs: number; calls: number };
  /** Runs spent shrinking; false when running the trial again did not show the finding. */
  reproduced: boolean;
  shrinkRuns: number;
  /** The examples that show it in the smallest trial, and that trial's records. */
  examples: Violation[];
  count: number;
  records: JobstormRecord[];
}

export type FuzzStop = 'sequences' | 'time' | 'finding' | 'interrupted' | 'aborted';

export interface FuzzResult {
  seed: number;
  limits: JobPlanLimits;
  /** From the first trial's start to the last one's end, on the fuzz's clock. */
  durationMs: number;
  trials: number;
  sequences: number;
  calls: number;
  /** Calls the background load made beside the trials (0 without one). */
  loadCalls: number;
  stoppedBy: FuzzStop;
  findings: FuzzFinding[];
  edges: EdgeTable;
  /** Observations judged per check id, over every trial. */
  judged: Record<string, number>;
}

/** The seed that draws trial `i` of a fuzz seeded `seed` (a 32-bit integer, as fast-check takes). */
export function trialSeedOf(seed: number, i: number): number {
  return (seed + i) | 0;
}

/** The jobs trial `i` of a fuzz seeded `seed` runs. */
export function trialJobs(seed: number, i: number, limits: JobPlanLimits = DEFAULT_PLAN_LIMITS): FuzzJob[] {
  const [jobs] = fc.sample(trialArb(limits), { seed: trialSeedOf(seed, i), numRuns: 1 });
  return jobs ?? [];
}

interface Shrunk {
  jobs: FuzzJob[];
  result: TrialResult;
  runs: number;
}

/**
 * Shrinks the trial drawn from `trialSeed` against the target, keeping `id` firing. fast-check
 * draws the same first value from the seed as `trialJobs`; each smaller value that still fires
 * becomes the next to shrink from, so the last run that fired is the smallest found.
 */
async function shrink(
  id: string,
  trialSeed: number,
  o: FuzzOptions,
  settings: TrialSettings,
): Promise<Shrunk | undefined> {
  const maxRuns = o.maxShrinkRuns ?? 200;
  let runs = 0;
  let smallest: Shrunk | undefined;
  const property = fc.asyncProperty(trialArb(o.limits), async (jobs) => {
    // Past the cap every candidate passes unrun: the shrinker stops descending.
    if (runs >= maxRuns || o.signal?.aborted) return true;
    runs++;
    const result = await runTrial(jobs, settings, false);
    if (!result.findings.some((f) => f.id === id)) return true;
    smallest = { jobs, result, runs };
    return false;
  });
  await fc.check(property, { seed: trialSeed, numRuns: 1 });
  if (smallest === undefined) return undefined;
  // fast-check shrinks an array from its end and by halves, and may stop with a job left that
  // plays no part: each one is tried away on its own.
  for (let i = smallest.jobs.length - 1; i >= 0 && smallest.jobs.length > 1; i--) {
    if (runs >= maxRuns || o.signal?.aborted) break;
    runs++;
    const fewer: FuzzJob[] = smallest.jobs.filter((_, k) => k !== i);
    const result = await runTrial(fewer, settings, false);
    if (result.findings.some((f) => f.id === id)) smallest = { jobs: fewer, result, runs };
  }
  return { ...smallest, runs };
}

function findingOf(
  id: string,
  trial: number,
  trialSeed: number,
  jobs: FuzzJob[],
  result: TrialResult,
  shrunk: Shrunk | undefined,
): FuzzFinding {
  const last = shrunk ?? { jobs, result, runs: 0 };
  const f = last.result.findings.find((x) => x.id === id) ?? result.findings.find((x) => x.id === id);
  return {
    id,
    trial,
    trialSeed,
    jobs: last.jobs,
    before: { jobs: jobs.length, calls: callsOf(jobs) },
    after: { jobs: last.jobs.length, calls: callsOf(last.jobs) },
    reproduced: shrunk !== undefined,
    shrinkRuns: last.runs,
    examples: f?.examples ?? [],
    count: f?.count ?? 0,
    records: last.result.records,
  };
}

function addJudged(into: Record<string, number>, judged: Readonly<Record<string, number>>): void {
  for (const [id, n] of Object.entries(judged)) into[id] = (into[id] ?? 0) + n;
}

/** Why the fuzz stops before trial `trials`, if it does. */
function stopBefore(o: FuzzOptions, sequences: number, deadline: number, clock: EpochClock): FuzzStop | undefined {
  if (o.signal?.aborted) return 'interrupted';
  if (o.budget.sequences !== undefined && sequences >= o.budget.sequences) return 'sequences';
  if (clock.now() >= deadline) return 'time';
  return undefined;
}

/** Runs trials until the budget is spent (or the first finding, if asked), shrinking each new finding. */
export async function fuzz(o: FuzzOptions): Promise<FuzzResult> {
  const clock = o.budgetClock ?? o.clock ?? systemClock;
  const settings: TrialSettings = { ...o, ...(o.clock ? { clock: o.clock } : {}) };
  const started = clock.now();
  const deadline = o.budget.timeMs === undefined ? Infinity : started + o.budget.timeMs;
  const edges = new EdgeCoverage();
  const judged: Record<string, number> = {};
  const findings: FuzzFinding[] = [];
  let sequences = 0;
  let calls = 0;
  let loadCalls = 0;
  let trials = 0;
  let stoppedBy: FuzzStop | undefined;
  while ((stoppedBy = stopBefore(o, sequences, deadline, clock)) === undefined) {
    const trialSeed = trialSeedOf(o.seed, trials);
    const jobs = trialJobs(o.seed, trials, o.limits);
    const result = await runTrial(jobs, settings, trials === 0);
    trials++;
    sequences += jobs.length;
    calls += callsOf(jobs);
    loadCalls += result.loadCalls;
    for (const r of result.records) edges.add(r);
    addJudged(judged, result.judged);
    if (result.aborted) {
      stoppedBy = o.signal?.aborted ? 'interrupted' : 'aborted';
      break;
    }
    for (const f of result.findings) {
      if (findings.some((known) => known.id === f.id)) continue;
      o.onFinding?.(f.id, trials - 1);
      const shrunk = await shrink(f.id, trialSeed, o, settings);
      findings.push(findingOf(f.id, trials - 1, trialSeed, jobs, result, shrunk));
    }
    o.onTrial?.({ trials, sequences, calls, findings: findings.length });
    if (findings.length > 0 && o.budget.firstFinding) {
      stoppedBy = 'finding';
      break;
    }
  }
  const limits = o.limits ?? DEFAULT_PLAN_LIMITS;
  const durationMs = clock.now() - started;
  const edgeTable = edges.table();
  return { seed: o.seed, limits, durationMs, trials, sequences, calls, loadCalls, stoppedBy, findings, edges: edgeTable, judged };
}
