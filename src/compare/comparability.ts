import { ConfigError } from '../core/config-error.js';
import type { Summary } from '../report/summary.js';
import type { CompareRun } from './compare-data.js';

/** Offered rates further apart than this are different experiments, not a regression. */
export const RATE_TOLERANCE = 0.1;

function offeredCount(s: Summary): number {
  const submissions = (s.operations.run?.requests ?? 0) + (s.operations.runsync?.requests ?? 0);
  if (submissions + s.dropped.total > 0) return submissions + s.dropped.total;
  return Object.values(s.operations).reduce((n, o) => n + o.requests, 0);
}

/** Counts this far apart (in standard deviations of a Poisson count) are not arrival noise. */
const COUNT_SIGMAS = 3;

export function describeRun(s: Summary, source: string): CompareRun {
  return {
    source,
    id: s.run.id,
    scenario: s.run.scenario,
    target: s.run.target,
    targetKind: s.run.ownsEndpoint ? 'emulator' : 'url',
    start: s.run.start,
    durationMs: s.run.durationMs,
    offered: offeredCount(s),
    offeredRate: s.run.durationMs > 0 ? offeredCount(s) / (s.run.durationMs / 1000) : 0,
    shards: s.run.shards,
  };
}

/** Why two runs are not the same experiment; empty when they are. */
export function differences(b: CompareRun, c: CompareRun): string[] {
  const out: string[] = [];
  if (b.scenario !== c.scenario)
    out.push(`different scenarios: the baseline ran "${b.scenario}", the current run "${c.scenario}"`);
  if (b.targetKind !== c.targetKind)
    out.push(
      `different kinds of target: the baseline ran against ${b.targetKind === 'emulator' ? 'the embedded emulator' : 'a URL'}, the current run against ${c.targetKind === 'emulator' ? 'the embedded emulator' : 'a URL'}`,
    );
  const hi = Math.max(b.offeredRate, c.offeredRate);
  const lo = Math.min(b.offeredRate, c.offeredRate);
  // A few seconds at 5/s: 16 submissions against 13 is the luck of a weighted draw, not a new rate.
  const beyondNoise = Math.abs(b.offered - c.offered) > COUNT_SIGMAS * Math.sqrt(b.offered + c.offered);
  if (hi > 0 && (hi - lo) / hi > RATE_TOLERANCE && beyondNoise) {
    out.push(
      `different offered rates: ${b.offeredRate.toFixed(1)}/s in the baseline, ${c.offeredRate.toFixed(1)}/s now (more than ${RATE_TOLERANCE * 100}% apart); a change of load is not a regression`,
    );
  }
  return out;
}

/** Refuses (exit 2) runs that are not the same experiment, unless forced; returns what was forced. */
export function assertComparable(b: CompareRun, c: CompareRun, force: boolean): string[] {
  const diff = differences(b, c);
  if (diff.length && !force)
    throw new ConfigError(
      diff.map((message) => ({
        where: `${b.source} vs ${c.source}`,
        message: `${message} (--force compares them anyway)`,
      })),
    );
  return diff;
}
