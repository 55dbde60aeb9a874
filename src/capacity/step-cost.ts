import { scalingFigures } from '../metrics/scaling-figures.js';
import type { Summary } from '../report/summary.js';

/** What a step's workers did and cost over its measured window, from the step's /health samples. */
export interface StepCost {
  /** Most workers (idle + running + initializing) one sample showed; null when not measured. */
  peakWorkers: number | null;
  workerSeconds: number | null;
  /** Cost of the window per 1,000 jobs completed in it, at the scenario's price per worker-second. */
  costPer1kJobs: number | null;
  currency?: string;
  /** Why a figure above is null, when one is. */
  notMeasured?: string;
}

/**
 * The step's worker figures over its measured window [fromMs, toMs] (ms from the step's start):
 * the warm-up's worker time is left out as its jobs are, so the cost per 1,000 jobs is of one window.
 */
export function stepCost(summary: Summary, fromMs: number, toMs: number): StepCost {
  const sc = summary.scaling;
  if (!sc || sc.asked === 0)
    return { peakWorkers: null, workerSeconds: null, costPer1kJobs: null, notMeasured: 'no /health sample' };
  const [from, to] = [summary.run.startMs + fromMs, summary.run.startMs + toMs];
  const keep = sc.samples.atMs.map((t) => t >= from && t <= to);
  const pick = <T>(col: readonly T[]): T[] => col.filter((_, i) => keep[i]);
  const s = sc.samples;
  const samples = {
    atMs: pick(s.atMs),
    idle: pick(s.idle),
    running: pick(s.running),
    initializing: pick(s.initializing),
    throttled: pick(s.throttled),
    inQueue: pick(s.inQueue),
    inProgress: pick(s.inProgress),
  };
  const f = scalingFigures(
    { ...sc, samples, delayUs: [] },
    { originMs: summary.run.startMs, completed: summary.jobs.byState.COMPLETED },
  );
  const why = f.notMeasured.costPer1kJobs ?? f.notMeasured.workerSeconds ?? f.notMeasured.peakWorkers;
  return {
    peakWorkers: f.peakWorkers,
    workerSeconds: f.workerSeconds,
    costPer1kJobs: f.costPer1kJobs,
    currency: f.currency,
    notMeasured: why,
  };
}
