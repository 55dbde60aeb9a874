import { confirmJob, ok, routeMissing, type StepRunner } from './iteration-state.js';
import { noOptions } from './no-options.js';
import { defineStep } from './step-kind.js';

export interface RetryStep {
  readonly kind: 'retry';
}

const RetrySchema = noOptions('retry', "POST /retry the flow's job (it must be FAILED or TIMED_OUT).");

/** POST /retry of the flow's job. */
const retryJob: StepRunner<RetryStep> = async (_step, it) => {
  if (it.jobId === undefined) return false;
  if (routeMissing(it, 'retry')) return true;
  const r = await it.ctx.client.retry(it.jobId, it.call('retry'));
  if (ok(r.status)) it.see(r);
  await confirmJob(it, 'retry', r.status);
  return true;
};

export const retry = defineStep({
  name: 'retry',
  example: {},
  payload: () => RetrySchema,
  needsJob: true,
  run: retryJob,
});
