import { FINAL_STATES } from '../../metrics/metrics-data.js';
import type { JobCounts } from '../../metrics/run-metrics.js';
import type { ProgressSnapshot } from '../../runner/run-options.js';

/**
 * The live progress line. Its job counts come from the run's metrics (the summary's definition:
 * each job in the first final state an accepted answer showed), not from the flows' own view of
 * "the last status I saw", so the live line and the end-of-run tally never tell different stories
 * (a cancel answered CANCELLED whose job a later poll saw COMPLETED is CANCELLED in both).
 */
export function progressLine(p: ProgressSnapshot, violations: number, jobs: JobCounts): string {
  const parts = [
    `submitted ${String(jobs.submitted)}`,
    ...FINAL_STATES.filter((st) => jobs.byState[st] > 0).map((st) => `${st} ${String(jobs.byState[st])}`),
  ];
  if (jobs.lost) parts.push(`lost ${String(jobs.lost)}`);
  parts.push(`unfinished ${String(jobs.unfinished)}`);
  const head = `${(p.elapsedMs / 1000).toFixed(0).padStart(4)}s  ${p.rate.toFixed(0).padStart(5)}/s  in flight ${String(p.inFlight)}  requests ${String(p.requests)}  429s ${String(p.throttled)}  errors ${String(p.errors)}  dropped ${String(p.dropped)}  violations ${String(violations)}`;
  return jobs.submitted > 0 ? `${head}  jobs: ${parts.join(' · ')}` : head;
}
