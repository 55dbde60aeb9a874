import { TIMING_RESOLUTION_MS } from '../metrics/timing-resolution.js';
import { formatMs, formatPercent } from '../report/format.js';
import { formatMoney } from '../report/scaling-rows.js';
import type { CapacityReport, CapacityStep } from './capacity-report.js';
import { roundRate } from './rate-search.js';

/*
 * What capacity.md, capacity.html and the terminal say in common: the headline, and the step table
 * as plain strings (each renderer escapes them its own way).
 */

/** Rates as the search chose them (101.25), not padded to a fixed number of decimals. */
export function formatStepRate(v: number | null): string {
  return v === null ? '–' : String(v >= 100 ? Math.round(v * 10) / 10 : roundRate(v));
}

const rate = formatStepRate;

/**
 * The step during which a target that had answered stopped answering, if that is how the search
 * ended (the search goes on only while the target is reached, so that is its last step).
 */
export function lostStep(r: CapacityReport): CapacityStep | undefined {
  return r.targetUnreachable ? r.steps.at(-1) : undefined;
}

/** The last passing step at the capacity's rate: the one the headline's rates are read from. */
function sustainedStep(r: CapacityReport): CapacityStep | undefined {
  return r.steps.filter((s) => s.passed && s.offeredRate === r.capacity).at(-1);
}

/**
 * The capacity as the step measured it. The search steps the offered rate (arrivals asked of the
 * flows), but a step can pass with fewer jobs submitted (429s, flows that submit no job) and fewer
 * achieved, so a bare "100 jobs/s" overstated what the endpoint did: each rate is named.
 */
function sustainedRates(r: CapacityReport): string {
  const offered = `${rate(r.capacity)} arrivals/s offered`;
  const s = sustainedStep(r);
  if (!s) return offered;
  return `${offered} (${rate(s.submittedRate)} jobs/s submitted, ${rate(s.achievedRate)} jobs/s achieved)`;
}

/** The one sentence a reader needs first. */
export function headline(r: CapacityReport): string {
  const { lastPassing, firstFailing } = r.confidence;
  if (r.generatorLimitedAt !== undefined) {
    const limit = `at ${rate(r.generatorLimitedAt)}/s jobstorm itself was the bottleneck and the search stopped there (capacity runs on one thread: give it a faster or less busy machine to go higher)`;
    return lastPassing !== null
      ? `Sustainable up to at least ${sustainedRates(r)}; ${limit}`
      : `No verdict: ${limit}`;
  }
  switch (r.verdict) {
    case 'found':
      return `Highest sustainable rate: ${sustainedRates(r)}; passed at ${rate(lastPassing)}/s offered, failed at ${rate(firstFailing)}/s`;
    case 'at-least':
      return `Sustainable up to at least ${sustainedRates(r)}: every step up to the maximum passed; raise --max to find the limit`;
    case 'none':
      return `No sustainable rate found: even the first step (${rate(r.steps[0]?.offeredRate ?? null)}/s) failed; lower --start`;
    case 'unknown': {
      if (!r.targetUnreachable) return 'No verdict: the search was interrupted before any step finished';
      const lost = lostStep(r);
      if (lost === undefined) return 'No verdict: the target could not be reached';
      const before = lastPassing !== null ? `, after passing at ${rate(lastPassing)}/s` : '';
      return `No verdict: the target stopped answering during step ${String(lost.index)} (${rate(lost.offeredRate)}/s)${before}; the search ended there (a target that goes down under load is a finding: see the steps before it)`;
    }
  }
}

export function planLine(r: Pick<CapacityReport, 'mode' | 'plan'>): string {
  const growth = r.plan.increment !== null ? `+${String(r.plan.increment)}/s` : `×${String(r.plan.factor)}`;
  return `${r.mode} search from ${String(r.plan.start)}/s (${growth}, max ${String(r.plan.max)}/s); each step ${formatMs(r.plan.warmupMs)} warm-up + ${formatMs(r.plan.stepDurationMs)} measured`;
}

export const STEP_HEADER = [
  '#',
  'stage',
  'offered/s',
  'submitted/s',
  'achieved/s',
  'result',
  'e2e p50',
  'e2e p95',
  'e2e p99',
  'delay p95',
  'exec p95',
  '429',
  'queue Δ/s',
  'workers',
  'L (health)',
  'λ·W',
  'L / λ·W',
  'worker-s',
  'cost/1k jobs',
];

function timing(count: number, ms: number, resolutionMs = 0): string {
  return count > 0 ? formatMs(ms, resolutionMs) : '–';
}

/** Where a column sits in STEP_HEADER, so renderers pick columns by name. */
export function column(name: string): number {
  const i = STEP_HEADER.indexOf(name);
  if (i < 0) throw new Error(`no column ${name}`);
  return i;
}

/** Workers running over a step's window as its column shows them: one number, or the range. */
function workersRange(w: NonNullable<CapacityStep['workers']>): string {
  return w.min === w.max ? String(w.max) : `${String(w.min)}–${String(w.max)}`;
}

export function stepRow(s: CapacityStep): string[] {
  return [
    String(s.index),
    s.stage,
    rate(s.offeredRate),
    rate(s.submittedRate),
    rate(s.achievedRate),
    s.passed
      ? s.generatorLimited
        ? 'pass (generator-limited)'
        : 'pass'
      : s.generatorLimited
        ? 'FAIL (generator-limited)'
        : s.stoppedEarly && s.reasons.some((x) => x.startsWith('unbounded'))
          ? 'FAIL (stopped early)'
          : 'FAIL',
    timing(s.e2e.count, s.e2e.p50),
    timing(s.e2e.count, s.e2e.p95),
    timing(s.e2e.count, s.e2e.p99),
    timing(s.delayTime.count, s.delayTime.p95, TIMING_RESOLUTION_MS.delayTime),
    timing(s.executionTime.count, s.executionTime.p95, TIMING_RESOLUTION_MS.executionTime),
    s.rate429 === null ? '–' : formatPercent(s.rate429),
    s.queue.growthPerSec === null ? '–' : s.queue.growthPerSec.toFixed(1),
    s.workers ? workersRange(s.workers) : '–',
    s.little ? s.little.observed.toFixed(1) : '–',
    s.little ? s.little.predicted.toFixed(1) : '–',
    s.little?.ratio == null ? '–' : s.little.ratio.toFixed(2),
    s.cost?.workerSeconds == null ? '–' : s.cost.workerSeconds.toFixed(1),
    s.cost?.costPer1kJobs == null ? '–' : formatMoney(s.cost.costPer1kJobs, s.cost.currency),
  ];
}

/**
 * What the sustainable rate takes, from the last passing step: "50/s offered needs 10–12 workers
 * running and costs 0.42 USD per 1,000 jobs"; undefined when no step passed or it measured no
 * workers. The workers are the step's `workers` column (running, from /health), not the peak of
 * all workers, so the sentence and the table never give two numbers for one fact.
 */
export function costLine(r: CapacityReport): string | undefined {
  const passing = r.steps.filter((s) => s.passed).at(-1);
  const c = passing?.cost;
  if (!passing?.workers || !c) return undefined;
  const workers = `${rate(passing.offeredRate)}/s offered needs ${workersRange(passing.workers)} workers running`;
  const ws = c.workerSeconds === null ? '' : ` (${c.workerSeconds.toFixed(1)} worker-s over the step)`;
  if (c.costPer1kJobs !== null)
    return `${workers}${ws} and costs ${formatMoney(c.costPer1kJobs, c.currency)} per 1,000 jobs`;
  return `${workers}${ws}; cost not measured: ${c.notMeasured ?? 'no data'}`;
}

/** Failing steps with their reasons, in the order they ran. */
export function reasonLines(r: CapacityReport): string[] {
  return r.steps
    .filter((s) => !s.passed)
    .map((s) => `step ${String(s.index)} (${rate(s.offeredRate)}/s): ${s.reasons.join('; ')}`);
}

export const LITTLE_NOTE =
  "Little's law cross-check: L is the mean of inQueue + inProgress from /health over the measured window; λ·W is the achieved rate times the mean time in system (delayTime + executionTime as reported, or the client's end-to-end time). A ratio near 1 means the endpoint's counters and the client's timings agree; far from 1 points at other traffic on the endpoint, lagging counters, or a step that never reached a steady state.";
