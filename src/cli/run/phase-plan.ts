import { basename } from 'node:path';
import { traceTimesOf } from '../../runner/trace-times.js';
import { arrivalSchedule } from '../../schedule/arrival-schedule.js';
import type { Scenario } from '../../scenario/scenario.js';

/** One phase on the run's clock, named as the user named it. */
interface PhaseSpan {
  name: string;
  startMs: number;
  endMs: number;
}

/** Where the schedule's phases sit, so a progress line can say which one runs and how long is left. */
export interface PhasePlan {
  phases: readonly PhaseSpan[];
  /** End of the last phase: arrivals stop there, then running iterations get their graceful stop. */
  totalMs: number;
  /** The unmeasured start of the schedule (0 for none). */
  warmupMs: number;
}

/** Which phase runs at `elapsedMs`, in a long and a short wording. */
export interface PhaseLabel {
  long: string;
  short: string;
}

/** The scenario's phases on its clock, as the runner schedules them (count phases end by count / rate). */
export function phasePlanOf(scenario: Scenario): PhasePlan {
  const schedule = arrivalSchedule(scenario.phases, {
    process: scenario.arrivals.process,
    seed: scenario.arrivals.seed,
    // A trace phase lasts its rows; a bad row ends the plan's phase there, as it will the run's.
    traces: traceTimesOf(scenario.phases, () => undefined),
  });
  const phases = schedule.windows.map((w) => ({
    name: phaseName(scenario, w.phase),
    startMs: w.startMs,
    endMs: w.endMs,
  }));
  return { phases, totalMs: schedule.durationMs, warmupMs: scenario.warmupMs ?? 0 };
}

/** The phase as the user named it, else a trace phase by its file, else by its place. */
function phaseName(scenario: Scenario, i: number): string {
  const phase = scenario.phases[i];
  if (phase?.name !== undefined) return phase.name;
  return phase?.kind === 'trace' ? `replay ${basename(phase.file)}` : `phase ${String(i + 1)}`;
}

/**
 * The phase at `elapsedMs`: its name and place (`burst (2/3)`), the warm-up said as such, and
 * `draining` once the arrivals ended and running iterations finish.
 */
export function phaseAt(plan: PhasePlan, elapsedMs: number): PhaseLabel {
  const n = plan.phases.length;
  const i = plan.phases.findIndex((p) => elapsedMs < p.endMs);
  const phase = plan.phases[i];
  if (!phase) return { long: 'draining', short: 'draining' };
  const place = n > 1 ? ` (${String(i + 1)}/${String(n)})` : '';
  if (elapsedMs < plan.warmupMs) return { long: `warm-up · ${phase.name}${place}`, short: 'warm-up' };
  return {
    long: `${phase.name}${place}`,
    short: phase.name.length > 16 ? `${String(i + 1)}/${String(n)}` : phase.name,
  };
}
