import type { Phase, Scenario, Step } from './scenario.js';

/*
 * Pure transforms behind `--duration` and `--rate-scale`, so any shipped scenario runs as a quick
 * check or a full test without editing it.
 */

/** How long a phase lasts: its duration, or count / rate for a count phase (0 when all at once). */
export function phaseDurationMs(phase: Phase): number {
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
  const current = totalDurationMs(scenario.phases);
  if (current === 0) return scenario;
  const factor = totalMs / current;
  const phases = scenario.phases.map((p): Phase => {
    if (p.kind !== 'count') return { ...p, durationMs: p.durationMs * factor };
    return p.rate === undefined || p.rate === 0 ? p : { ...p, rate: p.rate / factor };
  });
  return { ...withWarmup(scenario, (scenario.warmupMs ?? 0) * factor), phases };
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
 * count with their rate, and closed-model phases scale their virtual users (at least one).
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
