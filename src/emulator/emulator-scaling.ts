import type { ScalingExpectation } from '../core/scaling-expectation.js';
import { EmulatorOptionsSchema, type EmulatorOptions } from './options.js';

/**
 * How long past its cold start the faithful autoscaler may take to have workers on their way: it
 * starts them the moment jobs queue, so this is two /health samples (one a second) of slack.
 */
export const SCALE_UP_SLACK_MS = 2000;

/**
 * A real worker's start-up is its process's (interpreter, imports, model load): not known in
 * advance, so the bound is generous; a scenario states its own with `scaling.scaleUpWithin`.
 */
export const PROCESS_SCALE_UP_MS = 15_000;

/**
 * The scaling an emulator started with these options has: what the scaling checks expect of it
 * unless the scenario's `scaling:` says otherwise. The scale-up bound is its cold start plus
 * slack, or, with real worker processes, PROCESS_SCALE_UP_MS.
 */
export function emulatorScaling(options: EmulatorOptions): ScalingExpectation {
  const o = EmulatorOptionsSchema.parse(options);
  return {
    workersMin: o.workersMin,
    workersMax: o.workersMax,
    idleTimeoutMs: Math.round(o.idleTimeout * 1000),
    scaleUpWithinMs: o.workerProcess === undefined ? o.coldStartMs + SCALE_UP_SLACK_MS : PROCESS_SCALE_UP_MS,
  };
}
