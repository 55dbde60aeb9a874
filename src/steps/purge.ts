import { routeMissing, type StepRunner } from './iteration-state.js';
import { noOptions } from './no-options.js';
import { defineStep } from './step-kind.js';

export interface PurgeStep {
  readonly kind: 'purge';
}

/** POST /purge-queue: endpoint-wide, about no job of ours. */
const purgeQueue: StepRunner<PurgeStep> = async (_step, it) => {
  if (routeMissing(it, 'purge-queue')) return true;
  await it.ctx.client.purgeQueue(it.call('purge', undefined, false));
  return true;
};

export const purge = defineStep({
  name: 'purge',
  example: {},
  payload: () => noOptions('purge', 'POST /purge-queue.'),
  run: purgeQueue,
});
