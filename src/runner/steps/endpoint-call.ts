import type { HealthStep, PurgeStep } from '../../scenario/scenario.js';
import { routeMissing, type StepRunner } from './iteration-state.js';

/** POST /purge-queue: endpoint-wide, about no job of ours. */
export const purge: StepRunner<PurgeStep> = async (_step, it) => {
  if (routeMissing(it, 'purge-queue')) return true;
  await it.ctx.client.purgeQueue(it.call('purge', undefined, false));
  it.intendedAt = it.ctx.clock.now();
  return true;
};

/** GET /health. */
export const health: StepRunner<HealthStep> = async (_step, it) => {
  if (routeMissing(it, 'health')) return true;
  await it.ctx.client.health(it.call('health', undefined, false));
  it.intendedAt = it.ctx.clock.now();
  return true;
};
