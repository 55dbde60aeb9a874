import { starvedOfCpu } from '../core/cpu-starvation.js';
import type { Summary } from './summary.js';

const SHOWN = 5;

/**
 * "target stalled for 12.3 s from t+4s with 40 requests in flight (no answer at all)", one line
 * per stall; "target down" when connections were refused meanwhile: it was gone (crashed,
 * restarting), not frozen, which is a different thing to go and look for.
 */
export function stallLines(s: Pick<Summary, 'stalls'>): string[] {
  const stalls = s.stalls ?? [];
  const lines = stalls.slice(0, SHOWN).map((x) => {
    const failed = Object.entries(x.failed ?? {}).sort((a, b) => b[1] - a[1]);
    const what = (x.failed?.refused ?? 0) > 0 ? 'target down' : 'target stalled';
    const how = failed.length > 0 ? `; ${failed.map(([kind, n]) => `${kind} ${String(n)}`).join(', ')}` : '';
    return `${what} for ${(x.durationMs / 1000).toFixed(1)} s from t+${String(Math.max(0, Math.round(x.at / 1000)))}s with ${String(x.inFlight)} request${x.inFlight === 1 ? '' : 's'} in flight (no answer at all${how})`;
  });
  if (stalls.length > SHOWN)
    lines.push(`... and ${String(stalls.length - SHOWN)} more stalls (summary.json "stalls")`);
  return lines;
}

/** "jobstorm was the bottleneck for 4.0 s from t+3s (…)", one line per stretch. */
export function generatorLines(s: Pick<Summary, 'generatorLimited'>): string[] {
  const stretches = s.generatorLimited ?? [];
  const lines = stretches.slice(0, SHOWN).map((x) => {
    const when = `for ${(x.durationMs / 1000).toFixed(1)} s from t+${String(Math.max(0, Math.round(x.at / 1000)))}s`;
    const figures = `event loop ${String(Math.round(x.busy * 100))}% busy, callbacks late by up to ${x.loopDelayP99Ms.toFixed(0)} ms, arrivals late p99 ${x.latenessP99Ms.toFixed(0)} ms`;
    return starvedOfCpu(x)
      ? `jobstorm did not get the CPU it needed ${when} (it ran ${String(Math.round((x.cpuShare ?? 0) * 100))}% of a core while work waited; ${figures}): latencies there are partly its own; give it more CPU (a CPU quota, other processes or the host took it)`
      : `jobstorm itself was the bottleneck ${when} (${figures}): latencies there are partly its own`;
  });
  if (stretches.length > SHOWN)
    lines.push(`... and ${String(stretches.length - SHOWN)} more (summary.json "generatorLimited")`);
  return lines;
}

/**
 * "120 arrivals waited for a free connection (all 2 busy), up to 812 ms past their intended
 * start: …". jobstorm's own pool was a limit: the wait is in their latency from the intended start.
 */
export function connectionWaitLines(s: Pick<Summary, 'run'>): string[] {
  const w = s.run.connectionWait;
  if (!w) return [];
  const arrivals = `${String(w.arrivals)} arrival${w.arrivals === 1 ? '' : 's'}`;
  return [
    `${arrivals} waited for a free connection (all ${String(w.connections)} busy), up to ${String(Math.round(w.longestMs))} ms past the intended start: latency from the intended start includes the wait; if the target was not the slow part, raise target.connections`,
  ];
}
