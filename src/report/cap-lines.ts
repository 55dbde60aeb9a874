import type { CapCount, CapId } from '../core/run-limits.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** What each cap keeps, and what became of what it dropped: one line of every report per cap reached. */
const CAP_TEXT: Record<CapId, (limit: string, dropped: string) => string> = {
  'jobs.followed': (limit, dropped) =>
    `jobs followed: ${limit} at once; ${dropped} given up on early (their final state not judged, their end-to-end time not measured; counted as untracked)`,
  'checks.held': (limit, dropped) =>
    `checks: ${limit} jobs held in full at once; ${dropped} retired early, before their final state or hold (kept in brief: later observations still judged, without the evidence timeline before)`,
  'checks.brief': (limit, dropped) =>
    `checks: the last ${limit} retired jobs kept in brief; ${dropped} older ones forgotten (a later observation of one is judged as of a job not seen before)`,
  'checks.queued': (limit, dropped) =>
    `scaling checks: ${limit} jobs' time in the queue followed at once; ${dropped} given up on (counted as queued to the end of the run, an upper bound)`,
  'checks.health-samples': (limit, dropped) =>
    `health checks: the first ${limit} /health samples kept for health.jobs-mismatch; ${dropped} later ones not judged by it`,
  'checks.scaling-samples': (limit, dropped) =>
    `scaling checks: the first ${limit} /health samples judged; ${dropped} later ones not judged`,
  'scaling.samples': (limit, dropped) =>
    `scaling figures: the first ${limit} /health samples kept; ${dropped} later ones left out of the figures`,
  'scaling.low-priority': (limit, dropped) =>
    `scaling figures: ${limit} lowPriority jobs' time in the queue followed at once and kept exact; ${dropped} given up on (counted as queued to the end) or left out (counted as queued jobs that call for workers)`,
};

/**
 * "jobs followed: 200,000 at once; 1,234,567 given up on early (…)": a run's memory is capped per
 * job and per sample (RunLimits), and where a cap dropped detail the reports say how much, never
 * nothing. Empty when no cap was reached.
 */
export function capLines(s: { readonly caps?: readonly CapCount[] }): string[] {
  return (s.caps ?? []).map((c) => CAP_TEXT[c.id](n(c.limit), n(c.dropped)));
}
