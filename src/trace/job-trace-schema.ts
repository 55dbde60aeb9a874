import { z } from 'zod';
import { JOB_ACTION_OPS, JOB_TRACE_OPS } from '../core/job-trace-job.js';

/*
 * jobstorm's own job trace: JSON Lines, one object a job, in submission order. It says what was
 * submitted when and what was done to the job afterwards, so a replay repeats a run's traffic, not
 * only its arrival times. Strict objects: it is our format, and a misspelt field dropped in silence
 * would replay something else than the user wrote.
 */

export { JOB_ACTION_OPS, JOB_TRACE_OPS, type JobActionOp, type JobTraceOp } from '../core/job-trace-job.js';

const count = (what: string) => z.number().int().nonnegative().optional().describe(what);

const JobTraceActionSchema = z
  .strictObject({
    at: z.number().nonnegative().describe('Milliseconds after the job was submitted.'),
    op: z.enum(JOB_ACTION_OPS).describe('The call made for the job (purge-queue: for its endpoint).'),
  })
  .describe('A call made for the job after it was submitted.');

export type { JobTraceAction } from '../core/job-trace-job.js';

export const JobTraceEntrySchema = z
  .strictObject({
    at: z
      .number()
      .nonnegative()
      .describe('Milliseconds from the trace start at which the job was submitted; never decreasing.'),
    op: z.enum(JOB_TRACE_OPS).describe('How the job was submitted: /run, /runsync or an OpenAI route.'),
    inputBytes: count('Size of the request body, in bytes.'),
    inputTokens: count('Prompt tokens.'),
    outputTokens: count('Tokens asked for or generated.'),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Fields of the job's input, set over the replaying step's input once that is rendered (sent as written: no templates)."),
    policy: z
      .strictObject({
        ttl: z.number().int().nonnegative().optional().describe('policy.ttl, milliseconds.'),
        executionTimeout: z
          .number()
          .int()
          .nonnegative()
          .optional()
          .describe('policy.executionTimeout, milliseconds.'),
        lowPriority: z.boolean().optional().describe('policy.lowPriority.'),
      })
      .optional()
      .describe("The job's policy, set over the replaying step's own."),
    webhook: z
      .literal(true)
      .optional()
      .describe("Sent with a webhook to the run's own receiver, as a step's `webhook: true`."),
    actions: z
      .array(JobTraceActionSchema)
      .optional()
      .describe('Calls made for the job after it was submitted, in order of their `at`.'),
  })
  .superRefine((entry, ctx) => {
    entry.actions?.forEach((action, i) => {
      const before = entry.actions?.[i - 1];
      if (before !== undefined && action.at < before.at)
        ctx.addIssue({
          code: 'custom',
          path: ['actions', i, 'at'],
          message: `${action.at} ms comes before the previous action's ${before.at} ms`,
        });
    });
  })
  .describe('One job of a jobstorm job trace (one JSON object a line).');

export type JobTraceEntry = z.infer<typeof JobTraceEntrySchema>;

/** Where the JSON Schema generated from `JobTraceEntrySchema` is kept, beside the code. */
export const JOB_TRACE_SCHEMA_PATH = 'schemas/job-trace.schema.json';

/** The JSON Schema of one line of a job trace, as zod 4 converts the schema above. */
export function jobTraceJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(JobTraceEntrySchema, { io: 'input', target: 'draft-2020-12' });
  return { ...schema, title: 'jobstorm job trace line' };
}
