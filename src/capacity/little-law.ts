import type { Summary } from '../report/summary.js';
import { jobsInSystem } from '../core/health-reading.js';
import type { TimedReading } from './timed-reading.js';

/**
 * Little's law, L = λ·W, as a cross-check of one step: the jobs the endpoint says it holds (mean of
 * inQueue + inProgress over the /health samples) against what the client measured (achieved rate ×
 * mean time in system). A ratio far from 1 means the two views disagree: other traffic on the
 * endpoint, counters that lag, or a window too short for a steady state.
 */
export interface LittleCheck {
  /** Mean jobs in system from /health. */
  observed: number;
  /** Achieved rate (jobs/s) × mean time in system (s). */
  predicted: number;
  /** observed / predicted; null when predicted is 0. */
  ratio: number | null;
  /** Mean time in system (ms) used for `predicted`. */
  timeInSystemMs: number;
  /** delayTime + executionTime as the endpoint reported them, or the client's end-to-end time. */
  timeFrom: 'delay+execution' | 'e2e';
}

function round(v: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function littleCheck(
  samples: readonly TimedReading[],
  achievedRate: number | null,
  summary: Summary,
): LittleCheck | null {
  if (samples.length === 0 || achievedRate === null) return null;
  const observed = samples.reduce((s, x) => s + jobsInSystem(x), 0) / samples.length;
  const { delayTime, executionTime } = summary.jobs;
  const fromBody = delayTime.percentiles.count > 0 && executionTime.percentiles.count > 0;
  const timeInSystemMs = fromBody
    ? delayTime.percentiles.mean + executionTime.percentiles.mean
    : summary.jobs.e2eAll.mean;
  if (!fromBody && summary.jobs.e2eAll.count === 0) return null;
  const predicted = (achievedRate * timeInSystemMs) / 1000;
  return {
    observed: round(observed),
    predicted: round(predicted),
    ratio: predicted > 0 ? round(observed / predicted) : null,
    timeInSystemMs: round(timeInSystemMs),
    timeFrom: fromBody ? 'delay+execution' : 'e2e',
  };
}
