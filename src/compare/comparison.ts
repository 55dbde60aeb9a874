import { asAnyOther } from './known-findings.js';
import type { Summary } from '../report/summary.js';
import { checkRows, lostChecks } from './check-rows.js';
import { assertComparable, describeRun } from './comparability.js';
import {
  COMPARE_VERSION,
  type CompareStatus,
  type Comparison,
  type DeltaRow,
  type GateResult,
} from './compare-data.js';
import { ChangeTests } from './change-tests.js';
import { deltaRows, rowMetrics } from './delta-rows.js';
import type { Gate } from './gate.js';
import { generatorLimitedSeconds } from '../report/verdict.js';
import { evaluateGates, gatedMetrics } from './gate-evaluation.js';

export interface CompareOptions {
  baselineSource: string;
  currentSource: string;
  gates?: readonly Gate[];
  /** A gate fails only on a change significant at this level (e.g. 0.95); null: on any change. */
  significance?: number | null;
  /** Confidence level of the intervals and of "significant" in the table (default 0.95). */
  level?: number;
  /** Smallest relative change of a time or rate per second called significant (default 0.05). */
  minEffect?: number;
  resamples?: number;
  seed?: number;
  /** Run-level shift assumed for job timings, which have no per-second series (default 0.05). */
  jobNoise?: number;
  force?: boolean;
}

export const COMPARE_DEFAULTS = {
  level: 0.95,
  minEffect: 0.05,
  resamples: 4000,
  seed: 1,
  jobNoise: 0.05,
} as const;

function describeRow(r: DeltaRow): string {
  const rel = r.relative === null ? '' : ` (${r.relative >= 0 ? '+' : ''}${(100 * r.relative).toFixed(1)}%)`;
  return `${r.metric}${rel}`;
}

/** A run that never reached its target or was cut short says nothing about the service. */
function unfinished(baseline: Summary, current: Summary): string[] {
  const out: string[] = [];
  for (const [name, s] of [
    ['baseline', baseline],
    ['current run', current],
  ] as const) {
    const status = s.verdict.status;
    if (status === 'unreachable' || status === 'interrupted') out.push(`the ${name} was ${status}`);
  }
  return out;
}

/** Said in the verdict whenever a run was generator-limited, whichever gates it touched. */
function limitedNotes(baseline: Summary, current: Summary): string[] {
  return (
    [
      ['baseline', baseline],
      ['current run', current],
    ] as const
  ).flatMap(([name, s]) => {
    const seconds = generatorLimitedSeconds(s);
    return seconds > 0
      ? [
          `the ${name} was generator-limited for ${seconds.toFixed(0)} s: its client-side latencies and rates there include jobstorm's own queueing`,
        ]
      : [];
  });
}

function verdictOf(
  gates: readonly GateResult[],
  lost: readonly string[],
  cut: readonly string[],
  notes: readonly string[],
): { status: CompareStatus; reasons: string[] } {
  const failed = gates.filter((g) => g.status === 'failed');
  const open = gates.filter((g) => g.status === 'inconclusive');
  const reasons = [...failed, ...open].map((g) => `${g.expression}: ${g.reason}`);
  if (lost.length)
    reasons.push(
      `not exercised now, though the baseline exercised them (a regression of the test, not of the service): ${lost.join(', ')}`,
    );
  reasons.push(...cut);
  let status: CompareStatus = 'passed';
  if (failed.length) status = 'failed';
  else if (open.length || lost.length || cut.length) status = 'inconclusive';
  if (status === 'passed')
    reasons.push(
      gates.length ? `${gates.length} gate${gates.length === 1 ? '' : 's'} passed` : 'no gates set',
    );
  reasons.push(...notes);
  return { status, reasons };
}

/** Lines up two runs: deltas with their significance, check ids, gates, and a verdict. */
export function compareRuns(baselineRun: Summary, currentRun: Summary, o: CompareOptions): Comparison {
  const baseline = asAnyOther(baselineRun);
  const current = asAnyOther(currentRun);
  const b = describeRun(baseline, o.baselineSource);
  const c = describeRun(current, o.currentSource);
  const forced = assertComparable(b, c, o.force ?? false);
  const settings = {
    level: o.level ?? COMPARE_DEFAULTS.level,
    minEffect: o.minEffect ?? COMPARE_DEFAULTS.minEffect,
    resamples: o.resamples ?? COMPARE_DEFAULTS.resamples,
    seed: o.seed ?? COMPARE_DEFAULTS.seed,
    jobNoise: o.jobNoise ?? COMPARE_DEFAULTS.jobNoise,
    significance: o.significance ?? null,
  };
  const rows = rowMetrics(baseline, current);
  const tests = new ChangeTests(baseline, current, settings, {
    table: rows.map((r) => r.threshold),
    gates: gatedMetrics(o.gates ?? []),
  });
  const deltas = deltaRows(rows, tests, baseline, current, settings);
  const checks = checkRows(baseline, current);
  const gates = evaluateGates(o.gates ?? [], baseline, current, settings, tests);
  return {
    version: COMPARE_VERSION,
    baseline: b,
    current: c,
    forced,
    settings,
    regressions: deltas.filter((r) => r.significant && r.direction === 'worse').map(describeRow),
    improvements: deltas.filter((r) => r.significant && r.direction === 'better').map(describeRow),
    deltas,
    checks,
    gates,
    verdict: verdictOf(
      gates,
      lostChecks(checks, baseline, current),
      unfinished(baseline, current),
      limitedNotes(baseline, current),
    ),
  };
}
