import { routeMissing, type StepRunner } from './iteration-state.js';
import { noOptions } from './no-options.js';
import { defineStep } from './step-kind.js';

export interface HealthStep {
  readonly kind: 'health';
}

/** GET /health. */
const readHealth: StepRunner<HealthStep> = async (_step, it) => {
  if (routeMissing(it, 'health')) return true;
  await it.ctx.client.health(it.call('health', undefined, false));
  return true;
};

export const health = defineStep({
  name: 'health',
  example: null,
  payload: () => noOptions('health', 'GET /health.'),
  run: readHealth,
});
