import { z } from 'zod';
import type { StepRunner } from './iteration-state.js';
import { PROBE_NAMES, PROBES, type ProbeName } from './probe-requests.js';
import { defineStep } from './step-kind.js';

export interface ProbeStep {
  readonly kind: 'probe';
  readonly probe: ProbeName;
}

const ProbeSchema = z
  .enum(PROBE_NAMES)
  .describe(
    "The checker's edge probes: limits (payload, wait, ttl, executionTimeout edges), auth (missing/wrong key, both header forms) management (StartPod of an unknown pod, CreateEndpoint with an invalid body: both must be refused with 400, and change nothing), or requests (what partial servers get wrong: /status of a job id that never existed must be 404, a body without input must be 400, /status and /stream must answer GET).",
  )
  .transform((probe): ProbeStep => ({ kind: 'probe', probe }));

/**
 * Requests at the contract's edges (limits, auth, management). They go one after another: the
 * first is due when the step was, each later one when the one before it ended (it.call reckons
 * it), so no request carries the ones before it in its latency from intended.
 */
const runProbe: StepRunner<ProbeStep> = async (step, it) => {
  await PROBES[step.probe](it.ctx, (kind, req) => it.call(kind, req, false));
  return true;
};

export const probe = defineStep({
  name: 'probe',
  example: 'limits',
  payload: () => ProbeSchema,
  run: runProbe,
});
