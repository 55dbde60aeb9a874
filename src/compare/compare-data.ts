import type { ThresholdUnit } from '../report/summary.js';

/**
 * compare.json: a run lined up against its baseline. Versioned like summary.json;
 * docs/compare-format.md documents every field.
 */
export const COMPARE_VERSION = 1;

export type TargetKind = 'emulator' | 'url';

/** One side of the comparison, as its summary described it. */
export interface CompareRun {
  /** The folder or file it was read from, as given. */
  source: string;
  id: string;
  scenario: string;
  target: string;
  targetKind: TargetKind;
  start: string;
  durationMs: number;
  /** Submissions (run, runsync) plus dropped arrivals; all requests when the run submits no jobs. */
  offered: number;
  /** `offered` per second of the run. */
  offeredRate: number;
  shards: string[];
}

/** worse/better say which way the change goes for the service; `changed` where neither applies. */
export type Direction = 'worse' | 'better' | 'changed' | 'same';

export type SignificanceMethod =
  'per-second bootstrap' | 'order-statistic resampling' | 'binomial resampling' | 'exact';

/**
 * Which changes are corrected together: the metrics a gate names (chosen before the runs, so
 * corrected among themselves only) and the table's other rows (everything else looked at).
 */
export type CorrectionFamily = 'gates' | 'table';

/** Holm's correction of one change for the others tested in its family. */
export interface Correction {
  family: CorrectionFamily;
  /** Changes tested together in that family (a row whose resamples never move asks nothing). */
  tests: number;
  /** Holm-adjusted p-value: significant at a level when `p ≤ 1 − level`. */
  p: number;
  /** 1 − p: the confidence every report shows. */
  confidence: number;
}

/** What the resamples say of one change, uncorrected. */
export interface Resampled {
  method: SignificanceMethod;
  /** Confidence interval of `current − baseline` at the comparison's level; null for exact values. */
  ci: [number, number] | null;
  /** Two-sided p-value of "no change" from the resamples, for this change alone. */
  p: number;
  /** 1 − p: how sure the resamples are that this change alone is not noise. */
  confidence: number;
}

export interface Significance extends Resampled {
  /** The same p after Holm's correction: what rows, gates and the headline all judge. */
  corrected: Correction;
}

export interface DeltaRow {
  /** Where the row belongs: an operation name, `jobs`, `requests` or `violations`. */
  group: string;
  /** The threshold expression of the metric, as a gate names it (`p99(run)`). */
  metric: string;
  unit: ThresholdUnit;
  baseline: number | null;
  current: number | null;
  /** current − baseline; null when either side lacks the metric. */
  delta: number | null;
  /** delta / baseline; null when the baseline is 0 or missing. */
  relative: number | null;
  direction: Direction | null;
  /** null when neither side has data to resample, or for a maximum (not resampleable). */
  significance: Significance | null;
  /**
   * The change is larger than run-to-run noise: significant at the level after Holm's correction
   * (`significance.corrected`), and at least `minEffect` of the baseline for times and rates per second.
   */
  significant: boolean;
  /**
   * It would be significant on its own (uncorrected p at the level, the same effect), whether or
   * not the correction keeps it: a change this flags and `significant` does not is named in the
   * headline, with why it is not called significant.
   */
  significantAlone: boolean;
  /** The change is large by LARGE_CHANGE's rules (large-change.ts), whether or not it was tested. */
  large: boolean;
  /** Why the change was not tested, when both sides have the metric and it was not; else null. */
  untested: Untested | null;
}

/** Why a row has no significance, and what would give it one. */
export interface Untested {
  /** One line: `too few values above p99 (135 and 166 of the 1000 needed)`, `a maximum: one value`. */
  reason: string;
  /** The measured length (ms) a run needs for this row to be tested; null when no length would do. */
  runMs: number | null;
}

/**
 * `clean`: exercised in both runs (coverage above 0, or unknown in a summary written before
 * coverage) with no violation; `not exercised`: judged nothing in either run, so it says nothing.
 */
export type CheckChange =
  'new' | 'vanished' | 'still' | 'clean' | 'not exercised' | 'not exercised now' | 'newly exercised';

export interface CheckRow {
  id: string;
  baselineViolations: number;
  currentViolations: number;
  /** Observations judged (summary.json `coverage`); null when that summary has no coverage. */
  baselineCoverage: number | null;
  currentCoverage: number | null;
  change: CheckChange;
}

export type GateStatus = 'passed' | 'failed' | 'inconclusive';

export interface GateResult {
  expression: string;
  where: string;
  status: GateStatus;
  /** The gated value (a change, absolute or relative), in `unit`; null when a side lacks data. */
  value: number | null;
  /** `relative` when the limit was a percentage of the baseline. */
  unit: ThresholdUnit | 'relative';
  /** Unit of `baseline` and `current`: the gated metric's own. */
  metricUnit: ThresholdUnit;
  baseline: number | null;
  current: number | null;
  significance: Significance | null;
  /** Why it passed, failed or could not decide, in one line. */
  reason: string;
}

export type CompareStatus = 'passed' | 'failed' | 'inconclusive';

export interface Comparison {
  version: typeof COMPARE_VERSION;
  baseline: CompareRun;
  current: CompareRun;
  /** Reasons the runs differ in kind, when compared anyway with --force. */
  forced: string[];
  settings: {
    level: number;
    minEffect: number;
    resamples: number;
    seed: number;
    jobNoise: number;
    significance: number | null;
  };
  /** Rows whose change is significant: what got worse, what got better. */
  regressions: string[];
  improvements: string[];
  deltas: DeltaRow[];
  checks: CheckRow[];
  gates: GateResult[];
  verdict: { status: CompareStatus; reasons: string[] };
}
