import { checkInfo, isCheckId } from '../check/catalog.js';
import type { Violation } from '../core/violation.js';
import type { EdgeTable } from './edge-coverage.js';
import type { FuzzBudget, FuzzFinding, FuzzResult, FuzzStop } from './fuzzer.js';
import type { FuzzJob, JobPlanLimits } from './job-plan.js';

/*
 * What `jobstorm fuzz` writes as fuzz.json: a versioned record of what was tried (the state
 * machine's edges and the calls made), what was found (each finding with its shrunk jobs, the
 * examples that show it and where its reproduction lies), and the verdict its exit code follows.
 */

export const FUZZ_REPORT_VERSION = 1;

/**
 * passed: traffic ran and nothing fired; failed: a check fired; interrupted: stopped by a signal
 * before the budget was spent; aborted: the target failed (unreachable, the run cut);
 * inconclusive: nothing was tried.
 */
export type FuzzVerdict = 'passed' | 'failed' | 'interrupted' | 'aborted' | 'inconclusive';

/** The files of a finding, relative to the report folder. */
export interface FindingFiles {
  trace: string;
  scenario: string;
  records: string;
}

export interface FindingReport {
  id: string;
  description: string;
  trial: number;
  trialSeed: number;
  before: { jobs: number; calls: number };
  after: { jobs: number; calls: number };
  /** False when running the trial again did not show the finding: its jobs are the trial's own. */
  reproduced: boolean;
  shrinkRuns: number;
  /** How often it fired in the smallest trial. */
  count: number;
  jobs: FuzzJob[];
  examples: Violation[];
  files: FindingFiles;
}

export interface FuzzReport {
  v: typeof FUZZ_REPORT_VERSION;
  kind: 'fuzz';
  verdict: FuzzVerdict;
  seed: number;
  /** `embedded emulator` or the remote target's base URL. */
  target: string;
  faults: string[];
  /** The background load beside each trial: its scenario file and the calls it made. */
  load?: { file: string; calls: number };
  budget: FuzzBudget;
  stoppedBy: FuzzStop;
  limits: JobPlanLimits;
  trials: number;
  sequences: number;
  calls: number;
  durationMs: number;
  edges: EdgeTable;
  /** Observations judged per check id over every trial: what the traffic could have failed. */
  judged: Record<string, number>;
  findings: FindingReport[];
}

/** At most this many examples of a finding are kept in fuzz.json (all are in its records). */
const EXAMPLES_KEPT = 3;

/** A finding's folder in the report: its id is safe as a file name (`family.name`). */
export function findingDir(id: string): string {
  return `findings/${id}`;
}

export function findingFiles(id: string): FindingFiles {
  const dir = findingDir(id);
  return { trace: `${dir}/job-trace.jsonl`, scenario: `${dir}/repro.yaml`, records: `${dir}/records.ndjson` };
}

function verdictOf(r: FuzzResult): FuzzVerdict {
  if (r.findings.length > 0) return 'failed';
  if (r.stoppedBy === 'interrupted') return 'interrupted';
  if (r.stoppedBy === 'aborted') return 'aborted';
  return r.sequences === 0 ? 'inconclusive' : 'passed';
}

function findingReport(f: FuzzFinding): FindingReport {
  return {
    id: f.id,
    description: isCheckId(f.id) ? checkInfo(f.id).description : '',
    trial: f.trial,
    trialSeed: f.trialSeed,
    before: f.before,
    after: f.after,
    reproduced: f.reproduced,
    shrinkRuns: f.shrinkRuns,
    count: f.count,
    jobs: f.jobs,
    examples: f.examples.slice(0, EXAMPLES_KEPT),
    files: findingFiles(f.id),
  };
}

export function fuzzReportOf(
  r: FuzzResult,
  o: { target: string; faults: readonly string[]; budget: FuzzBudget; load?: string },
): FuzzReport {
  return {
    v: FUZZ_REPORT_VERSION,
    kind: 'fuzz',
    verdict: verdictOf(r),
    seed: r.seed,
    target: o.target,
    faults: [...o.faults],
    ...(o.load === undefined ? {} : { load: { file: o.load, calls: r.loadCalls } }),
    budget: o.budget,
    stoppedBy: r.stoppedBy,
    limits: r.limits,
    trials: r.trials,
    sequences: r.sequences,
    calls: r.calls,
    durationMs: r.durationMs,
    edges: r.edges,
    judged: r.judged,
    findings: r.findings.map(findingReport),
  };
}
