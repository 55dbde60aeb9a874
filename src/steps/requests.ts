import type { StepRunner } from './iteration-state.js';
import { noOptions } from './no-options.js';
import { defineStep } from './step-kind.js';

export interface RequestsStep {
  readonly kind: 'requests';
}

/** GET /requests: endpoint-wide. */
const listRequests: StepRunner<RequestsStep> = async (_step, it) => {
  await it.ctx.client.requests(it.call('requests', undefined, false));
  return true;
};

export const requests = defineStep({
  name: 'requests',
  example: {},
  payload: () => noOptions('requests', "GET /requests: the endpoint's recent requests."),
  run: listRequests,
});
