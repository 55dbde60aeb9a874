import type { OpenAiStep, RequestsStep } from '../../scenario/scenario.js';
import type { StepRunner } from './iteration-state.js';

/**
 * `/openai/v1/<path>`: a completion (POST, the step's `stream` setting the body's `stream`) or the
 * model list (GET). It runs as a job on the endpoint, but its answer names no job of ours, so the
 * flow's job is left as it was; a refused call does not end the iteration.
 */
export const openai: StepRunner<OpenAiStep> = async (step, it) => {
  const { client, clock } = it.ctx;
  let body: Record<string, unknown> | undefined;
  if (step.body !== undefined) {
    const compiled = it.flow.inputs.get(step);
    body = compiled
      ? compiled.render({
          iteration: it.n,
          flow: it.flow.name,
          random: () => it.ctx.random(),
          ...(it.row ? { row: it.row } : {}),
        })
      : { ...step.body };
    if (step.stream) body.stream = true;
    else delete body.stream;
  }
  await client.openai(step.path, body, it.call('openai', undefined, false));
  it.intendedAt = clock.now();
  return true;
};

/** GET /requests: endpoint-wide. */
export const requests: StepRunner<RequestsStep> = async (_step, it) => {
  await it.ctx.client.requests(it.call('requests', undefined, false));
  it.intendedAt = it.ctx.clock.now();
  return true;
};
