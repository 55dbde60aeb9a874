/** The process's CPU time so far, user + system, in µs: what the generator watch reads each second. */
export function processCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}
