import { z } from 'zod';
import { DurationSchema, durationText } from '../scenario/field-schemas.js';
import type { StepRunner } from './iteration-state.js';
import { routeMissing } from './iteration-state.js';
import { defineStep } from './step-kind.js';

export interface StatusStep {
  readonly kind: 'status';
  readonly ttlMs?: number;
}

const StatusSchema = z
  .strictObject({
    ttl: DurationSchema.optional().describe(
      durationText('?ttl= for /status: set the job time-to-live (sent as milliseconds).', '1h'),
    ),
  })
  .nullable()
  .describe("GET /status of the flow's job once.")
  .transform((s): StatusStep => ({ kind: 'status', ttlMs: s?.ttl }));

/** One GET /status of the flow's job, optionally setting its ttl. */
const statusOnce: StepRunner<StatusStep> = async (step, it) => {
  if (it.jobId === undefined || routeMissing(it, 'status')) return false;
  const ttl = step.ttlMs;
  const r = await it.ctx.client.status(
    it.jobId,
    { ttl },
    it.call('status', ttl === undefined ? undefined : { statusTtl: ttl }),
  );
  it.see(r);
  return true;
};

export const status = defineStep({
  name: 'status',
  example: {},
  payload: () => StatusSchema,
  needsJob: true,
  run: statusOnce,
});
