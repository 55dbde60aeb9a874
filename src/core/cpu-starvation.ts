/**
 * A generator-limited stretch whose process ran less than half a core while its work waited was
 * starved of CPU (a quota, other processes, the host), not saturated: more worker threads will not
 * help there, more CPU will. The watch that finds stretches and the reports that explain them
 * share this one bound.
 */
export const STARVED_CPU_SHARE = 0.5;

export function starvedOfCpu(stretch: { cpuShare?: number }): boolean {
  return stretch.cpuShare !== undefined && stretch.cpuShare < STARVED_CPU_SHARE;
}

/** One reading of the process's CPU time, for the generator watch. */
export interface CpuReading {
  /** CPU time so far (user + system), µs: the process's, or a shard thread's share of it. */
  micros: number;
  /** When it was read, epoch ms (the same base in every thread). */
  atMs: number;
}
