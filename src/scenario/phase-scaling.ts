import { ConfigError } from '../core/index.js';
import type { Phase, Scenario, Step } from './scenario.js';

/*
 * Pure transforms behind `--duration` and `--rate-scale`, so any shipped scenario runs as a quick
 * check or a full test without editing it.
 */

/**
 * How long a phase lasts: its duration, or count / rate for a count phase (0 when all at once). A
 * trace phase lasts its window (`to` − `from`, looped, at its time scale); without a `to` it lasts
 * the trace, which is known only once the file is read: Infinity here, an upper bound.
 */
export function phaseDurationMs(phase: Phase): number {
  if (phase.kind === 'trace')
    return phase.toMs === undefined
      ? Infinity
      : ((phase.toMs - (phase.fromMs ?? 0)) * phase.loops) / phase.timeScale;
  if (phase.kind !== 'count') return phase.durationMs;
  return phase.rate === undefined || phase.rate === 0 ? 0 : (phase.count / phase.rate) * 1000;
}

export function totalDurationMs(phases: readonly Phase[]): number {
  return phases.reduce((sum, p) => sum + phaseDurationMs(p), 0);
}

/**
 * Stretches or shrinks every timed phase by the same factor so that the whole takes `totalMs`.
 * Rates stay as they are (so arrival counts scale with time), except in count phases, which keep
 * their count and change their rate to fit. The warm-up scales with them, so a shipped scenario's
 * warm-up never outlasts a quick `--duration` check. A scenario of instant phases only is returned as is.
 */
export function fitDuration(scenario: Scenario, totalMs: number): Scenario {
  if (!(totalMs > 0) || !Number.isFinite(totalMs))
    throw new RangeError(`fitDuration: total must be a positive number of ms, got ${totalMs}`);
  refuseTraces(scenario.phases);
  const current = totalDurationMs(scenario.phases);
  if (current === 0) return scenario;
  const factor = totalMs / current;
  const phases = scenario.phases.map((p): Phase => {
    if (p.kind === 'trace') return p;
    if (p.kind !== 'count') return { ...p, durationMs: p.durationMs * factor };
    return p.rate === undefined || p.rate === 0 ? p : { ...p, rate: p.rate / factor };
  });
  return { ...withWarmup(scenario, (scenario.warmupMs ?? 0) * factor), phases };
}

/**
 * A trace plays at its own times: stretching it would change its rate, cutting it would need its
 * length before the file is read. The user says which they mean (its window or its time scale).
 */
function refuseTraces(phases: readonly Phase[]): void {
  const i = phases.findIndex((p) => p.kind === 'trace');
  if (i < 0) return;
  throw new ConfigError([
    {
      where: '--duration',
      message: `cannot fit phases[${String(i)}], which replays a trace; shorten it with its replay.to or replay.timeScale instead`,
    },
  ]);
}

/** The scenario with this warm-up (0: none). */
export function withWarmup(scenario: Scenario, warmupMs: number): Scenario {
  if (warmupMs > 0) return { ...scenario, warmupMs };
  const rest = { ...scenario };
  delete (rest as { warmupMs?: number }).warmupMs;
  return rest;
}

/**
 * Multiplies every arrival rate by `factor`, keeping every phase's length: count phases scale their
 * count with their rate, and closed-model phases scale their virtual users (at least one). A trace
 * phase plays `factor` times as fast (its time scale multiplied): its rows are the same requests,
 * sent closer together, so its length shrinks by the factor.
 */
export function scaleRates(scenario: Scenario, factor: number): Scenario {
  if (!(factor > 0) || !Number.isFinite(factor))
    throw new RangeError(`scaleRates: factor must be a positive number, got ${factor}`);
  const phases = scenario.phases.map((p): Phase => {
    switch (p.kind) {
      case 'constant':
        return { ...p, rate: p.rate * factor };
      case 'ramp':
        return { ...p, from: p.from * factor, to: p.to * factor };
      case 'count':
        return {
          ...p,
          count: Math.max(1, Math.round(p.count * factor)),
          ...(p.rate === undefined ? {} : { rate: p.rate * factor }),
        };
      case 'vus':
        return { ...p, vus: Math.max(1, Math.round(p.vus * factor)) };
      case 'trace':
        return { ...p, timeScale: p.timeScale * factor };
    }
  });
  return { ...scenario, phases };
}

/**
 * Caps the poll and stream timeouts (loops included) at `maxMs`: with `--duration`, a step's own
 * timeout cannot outlive the run (its duration plus the graceful stop), whatever the scenario was
 * written for. Capped at the run's bound and no lower, a step never times out before the graceful
 * stop would have cut it, so shortening a run adds no timeouts of its own.
 */
export function capStepTimeouts(scenario: Scenario, maxMs: number): Scenario {
  const cap = (steps: readonly Step[]): Step[] =>
    steps.map((s): Step => {
      if (s.kind === 'loop') return { ...s, steps: cap(s.steps) };
      if ((s.kind === 'poll' || s.kind === 'stream') && s.timeoutMs > maxMs)
        return { ...s, timeoutMs: maxMs };
      return s;
    });
  return { ...scenario, flows: scenario.flows.map((f) => ({ ...f, steps: cap(f.steps) })) };
}

/**
 * `--strict`: an operation the target serves to another method than the contract's is reported
 * and no longer sent (the scenario's target.adapt off). One reshaping for `run` and `capacity`.
 */
export function withStrictTarget(scenario: Scenario): Scenario {
  return { ...scenario, target: { ...scenario.target, adapt: false } };
}
