/**
 * What a run keeps per job or per request, at most. Everything else a run holds grows with its
 * seconds (the per-second series) or with what is in flight (the send logs' windows), so these caps
 * are what keeps the memory of an hours-long soak flat. Past a cap the oldest detail goes first,
 * and how much went is counted (`CapCount`), so that a report never drops detail in silence.
 */
export interface RunLimits {
  /** Jobs the fold follows at once (src/fold/job-fold.ts); past it the oldest is given up on. */
  jobsFollowed: number;
  /** Jobs the checks hold in full at once (src/check/job-book.ts); past it the oldest is retired early. */
  checkJobsHeld: number;
  /** Retired jobs the checks keep in brief (src/check/job-afterlife.ts); past it the oldest is forgotten. */
  checkJobsBrief: number;
  /**
   * Jobs whose time in the queue is followed at once, and spans kept exact per priority, by the
   * scaling checks and figures (src/fold/queue-spans.ts); older spans are then counted coarsely.
   */
  queuedJobs: number;
  /** `/health` samples the `health.jobs-mismatch` rule keeps (the first ones). */
  healthSamples: number;
  /** `/health` samples the scaling checks and the scaling figures keep (the first ones). */
  scalingSamples: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = {
  jobsFollowed: 200_000,
  checkJobsHeld: 200_000,
  checkJobsBrief: 500_000,
  queuedJobs: 200_000,
  // Hours of one-a-second samples.
  healthSamples: 10_000,
  scalingSamples: 50_000,
};

/** Every cap that can drop detail, in the order reports list them. */
export const CAP_IDS = [
  'jobs.followed',
  'checks.held',
  'checks.brief',
  'checks.queued',
  'checks.health-samples',
  'checks.scaling-samples',
  'scaling.samples',
  'scaling.low-priority',
] as const;

export type CapId = (typeof CAP_IDS)[number];

/** A cap the run reached: its limit and how many jobs (or samples) it dropped detail of. */
export interface CapCount {
  id: CapId;
  limit: number;
  dropped: number;
}

/** The cap as a count when it dropped anything; none otherwise (reports list only caps reached). */
export function capCount(id: CapId, limit: number, dropped: number): CapCount[] {
  return dropped > 0 ? [{ id, limit, dropped }] : [];
}

/**
 * Counts of the same cap add up, limits too (each shard or part had its own), in CAP_IDS order:
 * merging is order-free.
 */
export function mergeCaps(...lists: readonly (readonly CapCount[] | undefined)[]): CapCount[] {
  const byId = new Map<CapId, CapCount>();
  for (const list of lists)
    for (const c of list ?? []) {
      const mine = byId.get(c.id);
      byId.set(
        c.id,
        mine ? { id: c.id, limit: mine.limit + c.limit, dropped: mine.dropped + c.dropped } : { ...c },
      );
    }
  return CAP_IDS.flatMap((id) => {
    const c = byId.get(id);
    return c ? [c] : [];
  });
}
