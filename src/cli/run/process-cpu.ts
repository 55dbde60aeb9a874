import type { CpuReading } from '../../core/cpu-starvation.js';

/** The process's CPU time so far, user + system, and when it was read: what the generator watch samples. */
export function readProcessCpu(): CpuReading {
  const u = process.cpuUsage();
  return { micros: u.user + u.system, atMs: performance.timeOrigin + performance.now() };
}
