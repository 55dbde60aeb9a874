import { withWarmup } from '../scenario/phase-scaling.js';
import type { Scenario } from '../scenario/scenario.js';

/**
 * The scenario one capacity step runs: the user's flows, arrival process and target settings, but
 * one constant phase at the step's rate, no thresholds (the search judges the SLO itself), and the
 * search's warm-up instead of the scenario's, so the generator watch leaves out what the step does.
 */
export function stepScenario(base: Scenario, rate: number, durationMs: number, warmupMs: number): Scenario {
  return {
    ...withWarmup(base, warmupMs),
    phases: [{ kind: 'constant', name: `capacity ${String(rate)}/s`, durationMs, rate }],
    thresholds: [],
  };
}

/** Time between /health calls while waiting for the queue to drain. */
const SETTLE_POLL_MS = 250;

/**
 * One virtual user calling /health every quarter second, for up to `timeoutMs`: the search stops
 * it (through the runner's interrupt) as soon as a sample shows the queue drained. Going through the
 * runner keeps the search on the runner's client, auth and records rather than a second HTTP path.
 */
export function settleScenario(base: Scenario, timeoutMs: number): Scenario {
  return {
    ...withWarmup(base, 0),
    phases: [{ kind: 'vus', name: 'capacity settle', durationMs: timeoutMs, vus: 1 }],
    flows: [
      {
        name: '_settle',
        weight: 1,
        steps: [{ kind: 'health' }, { kind: 'sleep', minMs: SETTLE_POLL_MS, maxMs: SETTLE_POLL_MS }],
      },
    ],
    thresholds: [],
  };
}
