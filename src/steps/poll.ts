import { STATUS_RANK } from '../../contracts/queue/states.js';
import { z } from 'zod';
import { isFinalStatus, JOB_STATUSES, type JobStatus } from '../core/job-status.js';
import { PositiveDurationSchema, durationText } from '../scenario/field-schemas.js';
import { ok, permanent, routeMissing, type IterationState } from './iteration-state.js';
import { defineStep } from './step-kind.js';

/** 404s a poll takes for a job it has not yet seen through /status (a new job may not be visible at once). */
const NOT_YET_VISIBLE_TRIES = 3;

export type PollTarget = 'final' | JobStatus;

export interface PollStep {
  readonly kind: 'poll';
  readonly until: PollTarget;
  readonly intervalMs: number;
  readonly backoff: number;
  readonly maxIntervalMs: number;
  readonly timeoutMs: number;
}

const Fields = z.strictObject({
  until: z
    .enum(['final', ...JOB_STATUSES])
    .default('final')
    .describe('Stop polling when the job reaches a final state (final) or this state.'),
  interval: PositiveDurationSchema.prefault('500ms').describe(
    durationText('Time between two /status calls.', '500ms'),
  ),
  backoff: z
    .number()
    .min(1)
    .default(1)
    .describe('Multiply the interval by this after each poll (1 = fixed interval).'),
  maxInterval: PositiveDurationSchema.prefault('5s').describe(
    durationText('Upper bound of the interval when backing off.', '5s'),
  ),
  timeout: PositiveDurationSchema.prefault('1m').describe(
    durationText('Give up polling after this long (recorded as a poll timeout).', '2m'),
  ),
});

const PollSchema = Fields.nullable()
  .describe("GET /status repeatedly until the flow's job reaches a state.")
  .transform((payload): PollStep => {
    const p = payload ?? Fields.parse({});
    return {
      kind: 'poll',
      until: p.until,
      intervalMs: p.interval,
      backoff: p.backoff,
      maxIntervalMs: p.maxInterval,
      timeoutMs: p.timeout,
    };
  });

/** Polls /status until the flow's job reaches a state. */
export const poll = defineStep({
  name: 'poll',
  example: {},
  payload: () => PollSchema,
  needsJob: true,
  run: (step, it) => pollUntil(step, it, 'poll'),
});

/** Has a job in `status` reached `target`? A poll may see a later state than the one it waits for. */
export function reached(status: JobStatus | undefined, target: PollTarget): boolean {
  if (status === undefined) return false;
  if (target === 'final') return isFinalStatus(status);
  return status === target || STATUS_RANK[status] > STATUS_RANK[target] || isFinalStatus(status);
}

export interface PollPlan {
  until: PollTarget;
  intervalMs: number;
  backoff: number;
  maxIntervalMs: number;
  timeoutMs: number;
}

/** Polls /status until the job reaches `plan.until`; a poll that runs out of time leaves the job to the next steps. */
export async function pollUntil(plan: PollPlan, it: IterationState, label: string): Promise<boolean> {
  if (it.jobId === undefined || routeMissing(it, 'status')) return false;
  const { client, clock } = it.ctx;
  const deadline = clock.now() + plan.timeoutMs;
  let interval = plan.intervalMs;
  let visible = false;
  let notFound = 0;
  // Always look at least once: a cancel's or runsync's own answer is not an observation of
  // what the job did next, and the checks need that observation.
  for (let first = true; first || !reached(it.status, plan.until); first = false) {
    if (!first && clock.now() >= deadline) return true;
    const r = await client.status(it.jobId, {}, it.call(label));
    // Stop on what asking again cannot change (the record says why): a permanent 4xx, a 404 for a
    // job already seen (gone), or 404s for one never seen past a few tries.
    if (permanent(r.status)) return false;
    if (r.status === 404 && (visible || ++notFound >= NOT_YET_VISIBLE_TRIES)) return false;
    if (ok(r.status)) visible = true;
    it.see(r);
    if (reached(it.status, plan.until)) break;
    // Like a real client: the next poll is an interval after this answer, never a catch-up burst.
    if (!(await it.waitFor(interval))) return false;
    interval = Math.min(plan.maxIntervalMs, interval * plan.backoff);
  }
  return true;
}
