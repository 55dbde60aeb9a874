import { z } from 'zod';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import { LIMITS } from './limits.js';

/*
 * Zod schemas of every queue operation. Responses are loose (unknown fields tolerated: the real
 * service adds fields such as `workerId` and `retries`); request schemas are strict, because a
 * request we build must never carry a field the spec does not name.
 */

const nonNegInt = z.number().int().nonnegative();
const inRange = (r: { min: number; max: number }) => z.number().int().min(r.min).max(r.max);

export const JobStatusSchema = z.enum(JOB_STATUSES);

/** SPEC "policy object". */
export const PolicySchema = z.strictObject({
  executionTimeout: inRange(LIMITS.executionTimeout).optional(),
  lowPriority: z.boolean().optional(),
  ttl: inRange(LIMITS.ttl).optional(),
});

/** SPEC "s3Config object". */
export const S3ConfigSchema = z.strictObject({
  accessId: z.string(),
  accessSecret: z.string(),
  bucketName: z.string(),
  endpointUrl: z.url(),
});

/** SPEC "Job submission body (for /run and /runsync)". `input` must be a JSON object. */
export const SubmissionBodySchema = z.strictObject({
  input: z.record(z.string(), z.unknown()),
  webhook: z.url().optional(),
  policy: PolicySchema.optional(),
  s3Config: S3ConfigSchema.optional(),
});
export type SubmissionBody = z.infer<typeof SubmissionBodySchema>;

/**
 * A job as /status, /runsync, /status-sync and webhooks show it (SPEC "Job", real-service.md
 * "/status"). COMPLETED carries its timings; FAILED carries `error` as a string.
 */
const jobFields = {
  id: z.string().min(1),
  status: JobStatusSchema,
  delayTime: nonNegInt.optional(),
  executionTime: nonNegInt.optional(),
  output: z.unknown().optional(),
  error: z.string().optional(),
  retries: nonNegInt.optional(),
  workerId: z.string().optional(),
};

function jobRules(
  job: { status: string; delayTime?: number; executionTime?: number; error?: string },
  ctx: z.RefinementCtx,
): void {
  if (job.status === 'COMPLETED') {
    if (job.delayTime === undefined)
      ctx.addIssue({ code: 'custom', path: ['delayTime'], message: 'COMPLETED job must report delayTime' });
    if (job.executionTime === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['executionTime'],
        message: 'COMPLETED job must report executionTime',
      });
  }
  if (job.status === 'FAILED' && job.error === undefined) {
    ctx.addIssue({ code: 'custom', path: ['error'], message: 'FAILED job must carry error as a string' });
  }
}

export const JobViewSchema = z.looseObject(jobFields).superRefine(jobRules);
export type JobView = z.infer<typeof JobViewSchema>;

/** SPEC "POST /run": id and status IN_QUEUE on acceptance. */
export const RunResponseSchema = z.looseObject({ id: z.string().min(1), status: z.literal('IN_QUEUE') });

/** SPEC "POST /runsync"; when the wait elapses the job comes back with a non-final status. */
export const RunsyncResponseSchema = JobViewSchema;

/** SPEC "GET /status/<job_id>". */
export const StatusResponseSchema = JobViewSchema;

/**
 * SPEC "POST /cancel/<job_id>": status CANCELLED. A cancel that races completion legally answers
 * with the job's final status, so any job status is accepted here and the transition checks judge it.
 */
export const CancelResponseSchema = z.looseObject({
  id: z.string().min(1),
  status: JobStatusSchema,
  delayTime: nonNegInt.optional(),
  executionTime: nonNegInt.optional(),
});

/** SPEC "POST /retry/<job_id>": same id, IN_QUEUE. */
export const RetryResponseSchema = z.looseObject({ id: z.string().min(1), status: z.literal('IN_QUEUE') });

/** SPEC "POST /purge-queue": `{removed, status: "completed"}` (lower case, as the spec says). */
export const PurgeResponseSchema = z.looseObject({ removed: nonNegInt, status: z.literal('completed') });

/** SPEC "GET /health"; real clients also declare workers.initializing, ready, throttled. */
export const HealthResponseSchema = z.looseObject({
  jobs: z.looseObject({
    completed: nonNegInt,
    failed: nonNegInt,
    inProgress: nonNegInt,
    inQueue: nonNegInt,
    retried: nonNegInt,
  }),
  workers: z.looseObject({
    idle: nonNegInt,
    running: nonNegInt,
    initializing: nonNegInt.optional(),
    ready: nonNegInt.optional(),
    throttled: nonNegInt.optional(),
    unhealthy: nonNegInt.optional(),
  }),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/** One streamed chunk: the spec's `{output, metrics?}`; the clients' envelope items are `{output}`. */
export const StreamChunkSchema = z.looseObject({
  output: z.unknown(),
  metrics: z.record(z.string(), z.unknown()).optional(),
});

/** real-service.md "/stream": what the official clients read. */
export const StreamEnvelopeSchema = z.looseObject({
  status: JobStatusSchema,
  stream: z.array(StreamChunkSchema),
  id: z.string().optional(),
  delayTime: nonNegInt.optional(),
  executionTime: nonNegInt.optional(),
});

/** SPEC "GET /stream/<job_id>": a bare JSON array of chunk objects. */
export const StreamArraySchema = z.array(StreamChunkSchema);

/** Both shapes seen in the world; the toolkit accepts either (real-service.md). */
export const StreamResponseSchema = z.union([StreamEnvelopeSchema, StreamArraySchema]);
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

/**
 * SPEC "Errors": the body shape is "not shown". We require a JSON object that says what went
 * wrong in `error` or `message` (the management API's documented `{message}`).
 */
export const ErrorBodySchema = z
  .looseObject({ error: z.string().optional(), message: z.string().optional() })
  .refine((b) => b.error !== undefined || b.message !== undefined, {
    message: 'error body must say what went wrong in "error" or "message"',
  });

/** real-service.md: the webhook body is the /status body, plus the job's input and webhook. */
export const WebhookBodySchema = z
  .looseObject({ ...jobFields, input: z.unknown().optional(), webhook: z.string().optional() })
  .superRefine(jobRules);
