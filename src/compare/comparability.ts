import { ConfigError } from '../core/config-error.js';
import type { Summary } from '../report/summary.js';
import type { CompareRun } from './compare-data.js';

/** Offered rates further apart than this are different experiments, not a regression. */
export const RATE_TOLERANCE = 0.1;

function offeredRate(s: Summary): number {
  const seconds = s.run.durationMs / 1000;
  if (seconds <= 0) return 0;
  const submissions = (s.operations.run?.requests ?? 0) + (s.operations.runsync?.requests ?? 0);
  if (submissions + s.dropped.total > 0) return (submissions + s.dropped.total) / seconds;
  return Object.values(s.operations).reduce((n, o) => n + o.requests, 0) / seconds;
}

export function describeRun(s: Summary, source: string): CompareRun {
  return {
    source,
    id: s.run.id,
    scenario: s.run.scenario,
    target: s.run.target,
    targetKind: s.run.ownsEndpoint ? 'emulator' : 'url',
    start: s.run.start,
    durationMs: s.run.durationMs,
    offeredRate: offeredRate(s),
    shards: s.run.shards,
  };
}

/** Why two runs are not the same experiment; empty when they are. */
export function differences(b: CompareRun, c: CompareRun): string[] {
  const out: string[] = [];
  if (b.scenario !== c.scenario) out.push(`different scenarios: the baseline ran "${b.scenario}", the current run "${c.scenario}"`);
  if (b.targetKind !== c.targetKind) out.push(`different kinds of target: the baseline ran against ${b.targetKind === 'emulator' ? 'the embedded emulator' : 'a URL'}, the current run against ${c.targetKind === 'emulator' ? 'the embedded emulator' : 'a URL'}`);
  const hi = Math.max(b.offeredRate, c.offeredRate);
  const lo = Math.min(b.offeredRate, c.offeredRate);
  if (hi > 0 && (hi - lo) / hi > RATE_TOLERANCE) {
    out.push(
      `different offered rates: ${b.offeredRate.toFixed(1)}/s in the baseline, ${c.offeredRate.toFixed(1)}/s now (more than ${RATE_TOLERANCE * 100}% apart); a change of load is not a regression`,
    );
  }
  return out;
}

/** Refuses (exit 2) runs that are not the same experiment, unless forced; returns what was forced. */
export function assertComparable(b: CompareRun, c: CompareRun, force: boolean): string[] {
  const diff = differences(b, c);
  if (diff.length && !force) throw new ConfigError(diff.map((message) => ({ where: `${b.source} vs ${c.source}`, message: `${message} (--force compares them anyway)` })));
  return diff;
}
