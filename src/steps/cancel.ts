import { z } from 'zod';
import { JOB_STATUSES, type JobStatus } from '../core/job-status.js';
import { DurationSchema, durationText } from '../scenario/field-schemas.js';
import { isRecord } from '../scenario/raw-value.js';
import { confirmJob, routeMissing, type StepRunner } from './iteration-state.js';
import { pollUntil } from './poll.js';
import { defineStep, type StepRules } from './step-kind.js';

/** Cancel at once (neither field), `afterMs` after submission, or `when` a poll sees that state. */
export interface CancelStep {
  readonly kind: 'cancel';
  readonly afterMs?: number;
  readonly when?: JobStatus;
}

const CancelSchema = z
  .strictObject({
    after: DurationSchema.optional().describe(
      durationText('Cancel this long after the job was submitted.', '2s'),
    ),
    when: z.enum(JOB_STATUSES).optional().describe('Cancel once a /status poll sees this state.'),
  })
  .nullable()
  .describe("POST /cancel the flow's job: at once ({}), after a delay, or when a state is seen.")
  .transform((c): CancelStep => ({
    kind: 'cancel',
    afterMs: c?.after,
    when: c?.when,
  }));

const rules: StepRules = (payload, at) =>
  isRecord(payload) && payload.after !== undefined && payload.when !== undefined
    ? [{ path: [...at, 'when'], message: 'cancel takes after or when, not both', atKey: true }]
    : [];

/** How a `cancel: { when }` watches for its state: a brisk poll, bounded like any poll. */
const WATCH = { intervalMs: 100, backoff: 1, maxIntervalMs: 100, timeoutMs: 60_000 };

/** POST /cancel at once, `afterMs` after submission, or once a poll sees `when`. */
const cancelJob: StepRunner<CancelStep> = async (step, it) => {
  if (it.jobId === undefined) return false;
  const { client, clock } = it.ctx;
  if (step.when !== undefined) {
    if (!(await pollUntil({ ...WATCH, until: step.when }, it, 'poll'))) return false;
  } else if (step.afterMs !== undefined) {
    if (!(await it.waitUntil((it.submittedAt ?? clock.now()) + step.afterMs))) return false;
  }
  if (routeMissing(it, 'cancel')) return true;
  const r = await client.cancel(it.jobId, it.call('cancel'));
  it.see(r);
  await confirmJob(it, 'cancel', r.status);
  return true;
};

export const cancel = defineStep({
  name: 'cancel',
  example: { after: '1s' },
  payload: () => CancelSchema,
  needsJob: true,
  rules,
  run: cancelJob,
});
