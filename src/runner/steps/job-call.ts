import type { RetryStep, StatusStep } from '../../scenario/scenario.js';
import { confirmJob, ok, routeMissing, type StepRunner } from './iteration-state.js';

/** POST /retry of the flow's job. */
export const retry: StepRunner<RetryStep> = async (_step, it) => {
  if (it.jobId === undefined) return false;
  if (routeMissing(it, 'retry')) return true;
  const r = await it.ctx.client.retry(it.jobId, it.call('retry'));
  it.intendedAt = it.ctx.clock.now();
  if (ok(r.status)) it.see(r);
  await confirmJob(it, 'retry', r.status);
  return true;
};

/** One GET /status of the flow's job, optionally setting its ttl. */
export const status: StepRunner<StatusStep> = async (step, it) => {
  if (it.jobId === undefined || routeMissing(it, 'status')) return false;
  const ttl = step.ttlMs === undefined ? undefined : step.ttlMs;
  const r = await it.ctx.client.status(
    it.jobId,
    ttl === undefined ? {} : { ttl },
    it.call('status', ttl === undefined ? undefined : { statusTtl: ttl }),
  );
  it.intendedAt = it.ctx.clock.now();
  it.see(r);
  return true;
};
