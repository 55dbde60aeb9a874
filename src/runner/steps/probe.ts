import type { BlastStep, ProbeStep } from '../../scenario/scenario.js';
import { runBlast } from '../blast-step.js';
import { runProbe } from '../probes.js';
import type { StepRunner } from './iteration-state.js';

/**
 * Requests at the contract's edges (limits, auth, management). They go one after another: the
 * first is due at the arrival, each later one when the one before it ended, so no request carries
 * the ones before it in its latency from intended.
 */
export const probe: StepRunner<ProbeStep> = async (step, it) => {
  let first = true;
  await runProbe(step.probe, it.ctx, (kind, req) => {
    if (!first) it.intendedAt = it.ctx.clock.now();
    first = false;
    return it.call(kind, req, false);
  });
  it.intendedAt = it.ctx.clock.now();
  return true;
};

/** autocannon saturating one operation; its answers are records like any other. */
export const blast: StepRunner<BlastStep> = async (step, it) => {
  if (step.op === 'status' && it.jobId === undefined) return false;
  await runBlast(step, it.ctx, {
    flow: it.flow.name,
    step: `${String(it.stepIndex)}:blast`,
    ...(it.jobId === undefined ? {} : { jobId: it.jobId }),
  });
  it.intendedAt = it.ctx.clock.now();
  return true;
};
