import { z } from 'zod';
import { defineStep } from './step-kind.js';
import { submission, SUBMISSION_FIELDS, submissionRules, submit, type RunStep } from './submission.js';

const Fields = z.strictObject(SUBMISSION_FIELDS);

// `- run:` with nothing after it reads as null in YAML: it means `run: {}`.
const RunSchema = Fields.nullable()
  .describe('POST /run: submit an asynchronous job; later steps act on it.')
  .transform((r): RunStep => ({ kind: 'run', ...submission(r ?? Fields.parse({})) }));

/** POST /run: an asynchronous job that the flow's later steps act on. */
export const run = defineStep({
  name: 'run',
  example: {},
  payload: () => RunSchema,
  rules: submissionRules,
  run: submit,
  template: (step) => step.input,
});
