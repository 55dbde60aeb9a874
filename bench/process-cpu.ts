/**
 * A child process's CPU (user + sys, every thread) over a stretch of wall time, for benches that
 * need it over the measured window only (issue 52 part 4): a run's start-up (module loading,
 * zod's schemas, the JIT's first work) and its reports at the end are a fixed cost that a
 * 15-second run divides by few requests and an hour-long soak by millions. The sampler reads
 * /proc/<pid>/stat every `everyMs` and interpolates between samples; Linux only (elsewhere it
 * records nothing and `between` answers undefined).
 */
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in hundredths of a second on every architecture Node runs on. */
export const TICKS_PER_SECOND = 100;

/** The process's user + sys ticks, all threads; undefined once it is gone (or where there is no /proc). */
export function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** The CPU seconds of processes together; undefined when any is gone. */
export function cpuSecondsOf(pids: readonly number[]): number | undefined {
  let ticks = 0;
  for (const pid of pids) {
    const t = cpuTicks(pid);
    if (t === undefined) return undefined;
    ticks += t;
  }
  return ticks / TICKS_PER_SECOND;
}

/** The children of `pid` (its main thread's), none when it has none or is gone. */
export function childrenOf(pid: number): number[] {
  try {
    const list = readFileSync(`/proc/${String(pid)}/task/${String(pid)}/children`, 'utf8');
    return list.split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The first child of `pid` (e.g. what /usr/bin/time runs), once it exists. */
export function firstChild(pid: number): number | undefined {
  return childrenOf(pid)[0];
}

export class ProcessCpu {
  /** [epoch ms, ticks] pairs, in time order. */
  private readonly samples: [number, number][] = [];
  private readonly timer: NodeJS.Timeout;

  /** `pidOf` is asked until it names a process (a child may not exist yet when sampling starts). */
  constructor(pidOf: () => number | undefined, everyMs = 50) {
    let pid: number | undefined;
    const sample = (): void => {
      pid ??= pidOf();
      const ticks = pid === undefined ? undefined : cpuTicks(pid);
      if (ticks !== undefined) this.samples.push([Date.now(), ticks]);
    };
    this.timer = setInterval(sample, everyMs);
    sample();
  }

  /** Stops sampling; `cpuSeconds` at `atMs` (the whole process's, from /usr/bin/time at its exit) closes the series. */
  stop(atMs?: number, cpuSeconds?: number): void {
    clearInterval(this.timer);
    if (atMs !== undefined && cpuSeconds !== undefined)
      this.samples.push([atMs, cpuSeconds * TICKS_PER_SECOND]);
  }

  /**
   * CPU seconds spent between two epoch times, interpolated between the samples around each; undefined
   * when the samples do not cover the stretch (a process that ended first, or a platform without /proc).
   */
  between(fromMs: number, toMs: number): number | undefined {
    const a = ticksAt(this.samples, fromMs);
    const b = ticksAt(this.samples, toMs);
    return a === undefined || b === undefined ? undefined : (b - a) / TICKS_PER_SECOND;
  }
}

/**
 * The ticks at epoch time `t`, interpolated linearly between the samples (time-ordered [ms, ticks]
 * pairs) on either side; undefined outside them.
 */
export function ticksAt(samples: readonly (readonly [number, number])[], t: number): number | undefined {
  const i = samples.findIndex(([when]) => when >= t);
  if (i < 0) return undefined;
  const [t1, c1] = samples[i] as readonly [number, number];
  if (t1 === t) return c1;
  if (i === 0) return undefined;
  const [t0, c0] = samples[i - 1] as readonly [number, number];
  return c0 + ((c1 - c0) * (t - t0)) / (t1 - t0);
}
