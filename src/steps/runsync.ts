import { z } from 'zod';
import { DurationSchema, durationText } from '../scenario/field-schemas.js';
import { defineStep } from './step-kind.js';
import { submission, SUBMISSION_FIELDS, submissionRules, submit, type RunsyncStep } from './submission.js';

const Fields = z.strictObject({
  ...SUBMISSION_FIELDS,
  wait: DurationSchema.optional().describe(
    durationText('?wait= for /runsync (sent as milliseconds; the service defaults to 90s).', '30s'),
  ),
});

const RunsyncSchema = Fields.nullable()
  .describe('POST /runsync: submit and wait for the result; later steps act on the job.')
  .transform((payload): RunsyncStep => {
    const s = payload ?? Fields.parse({});
    return { kind: 'runsync', ...submission(s), waitMs: s.wait };
  });

/** POST /runsync: a job waited for in the request, then followed by /status-sync if still running. */
export const runsync = defineStep({
  name: 'runsync',
  example: { wait: '1s' },
  payload: () => RunsyncSchema,
  rules: submissionRules,
  run: submit,
  template: (step) => step.input,
});
