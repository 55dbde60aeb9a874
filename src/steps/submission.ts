import { z } from 'zod';
import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import { paddedSubmission, sizedSubmission } from '../client/sized-submission.js';
import { isFinalStatus } from '../core/job-status.js';
import type { TracedJob } from '../core/job-trace-job.js';
import type { RequestFacts } from '../core/record.js';
import { ByteSizeSchema, DurationSchema, durationText, sizeText } from '../scenario/field-schemas.js';
import type { KeyPath, PathIssue } from '../scenario/path-format.js';
import { isRecord } from '../scenario/raw-value.js';
import { ok, type IterationState, type StepRunner } from './iteration-state.js';
import type { FlowFacts } from './step-kind.js';
import { renderTemplate, templateRules } from './template-rules.js';
import { jobWebhookUrl } from './webhook-url.js';

/*
 * What run and runsync share: the job they submit. Request bodies are checked here for shape only:
 * the ranges of policy values belong to the contract, and the runner validates the body it builds
 * (a limits scenario may send out-of-range values on purpose).
 */

const PolicySchema = z
  .strictObject({
    executionTimeout: DurationSchema.optional().describe(
      durationText('policy.executionTimeout: how long the job may execute (sent as milliseconds).', '10m'),
    ),
    ttl: DurationSchema.optional().describe(
      durationText('policy.ttl: total lifespan of the job from submission (sent as milliseconds).', '24h'),
    ),
    lowPriority: z
      .boolean()
      .optional()
      .describe('policy.lowPriority: the job does not trigger worker scaling.'),
  })
  .describe('Execution policy sent with the job.');

const S3ConfigSchema = z
  .strictObject({
    accessId: z.string().describe('Bucket access key id.'),
    accessSecret: z
      .string()
      .describe('Bucket secret access key (use ${ENV} interpolation, never a literal).'),
    bucketName: z.string().describe('Bucket name.'),
    endpointUrl: z.string().describe("URL of the bucket's endpoint."),
  })
  .describe("Storage settings passed through to the worker's handler.");

/** The fields of a submitting step's payload. */
export const SUBMISSION_FIELDS = {
  input: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "The job's input object. String values may use {{row.field}}, {{trace.inputTokens}}, {{trace.outputTokens}}, {{trace.prompt}} (docs/replay.md), {{iteration}}, {{flow}}, {{random:min:max}}, {{length:<distribution>}} and {{text:<distribution>}} (docs/llm.md). " +
        "The emulator's handler reads sleep_ms, fail, stream (chunk count), chunk_bytes and output_bytes.",
    ),
  webhook: z
    .union([z.literal(true), z.string().min(1)])
    .optional()
    .describe("Webhook URL, or true for the runner's own loopback receiver."),
  policy: PolicySchema.optional(),
  s3Config: S3ConfigSchema.optional(),
  payloadBytes: ByteSizeSchema.optional().describe(
    sizeText('Pad the request body to about this many bytes (a padding string in input).', '1MB'),
  ),
};

export type Policy = NonNullable<z.output<typeof PolicySchema>>;
export type S3Config = NonNullable<z.output<typeof S3ConfigSchema>>;

/** What /run and /runsync send. `input` is a template: render it with `renderInput`. */
export interface Submission {
  readonly input: Readonly<Record<string, unknown>>;
  /** A URL, or true for the runner's own loopback receiver. */
  readonly webhook?: true | string;
  readonly policy?: Policy;
  readonly s3Config?: S3Config;
  readonly payloadBytes?: number;
}

export interface RunStep extends Submission {
  readonly kind: 'run';
}
export interface RunsyncStep extends Submission {
  readonly kind: 'runsync';
  readonly waitMs?: number;
}

export function submission(s: z.output<z.ZodObject<typeof SUBMISSION_FIELDS>>): Submission {
  return {
    input: s.input,
    webhook: s.webhook,
    policy: s.policy,
    s3Config: s.s3Config,
    payloadBytes: s.payloadBytes,
  };
}

/** The input's placeholders and the webhook URL; a submission gives the flow its job. */
export function submissionRules(payload: unknown, path: KeyPath, flow: FlowFacts): PathIssue[] {
  flow.hasJob = true;
  if (!isRecord(payload)) return [];
  const issues: PathIssue[] = [];
  if (isRecord(payload.input)) issues.push(...templateRules(payload.input, [...path, 'input'], flow));
  if (typeof payload.webhook === 'string' && !URL.canParse(payload.webhook)) {
    issues.push({ path: [...path, 'webhook'], message: `expected a URL or true, got "${payload.webhook}"` });
  }
  return issues;
}

/** POST /run, or /runsync followed (as the official clients do) by /status-sync when the wait ran out. */
export const submit: StepRunner<RunStep | RunsyncStep> = (step, it) => submitJob(step, it);

/**
 * As `submit`; `row` is a replayed job trace's row: its `input` and `policy` go over the step's
 * own, and its `inputBytes` pads the body when the step sets no size and the body is smaller.
 */
export async function submitJob(
  step: RunStep | RunsyncStep,
  it: IterationState,
  row?: TracedJob,
): Promise<boolean> {
  const { client, clock } = it.ctx;
  const { body, facts } = requestBody(step, it, row);
  it.submittedAt = clock.now();
  const r =
    step.kind === 'run'
      ? await client.run(body, it.call('run', facts, false))
      : await client.runsync(
          body,
          step.waitMs === undefined ? {} : { wait: step.waitMs },
          it.call('runsync', facts, false),
        );
  if (r.jobId === undefined || !ok(r.status)) return false;
  it.jobId = r.jobId;
  it.see(r);
  if (step.kind === 'runsync' && !isFinalStatus(it.status)) {
    const wait = step.waitMs === undefined ? undefined : { wait: step.waitMs };
    const s = await client.statusSync(r.jobId, wait ?? {}, it.call('status-sync', wait));
    if (ok(s.status)) it.see(s);
  }
  return true;
}

/** The policy sent: a replayed row's over the step's own. */
function policyOf(step: RunStep | RunsyncStep, row: TracedJob | undefined): Policy | undefined {
  return row?.policy === undefined ? step.policy : { ...step.policy, ...row.policy };
}

/** The webhook sent: our receiver's when the step or a replayed row asks for it, else the step's URL. */
function webhookOf(step: RunStep | RunsyncStep, it: IterationState, row: TracedJob | undefined): string | undefined {
  const own = step.webhook === true || row?.webhook === true;
  return own ? jobWebhookUrl(it.ctx.webhookUrl, it.ctx.shard) : step.webhook;
}

function requestBody(
  step: RunStep | RunsyncStep,
  it: IterationState,
  row: TracedJob | undefined,
): { body: SubmissionBody | Buffer; facts?: RequestFacts } {
  // The step's input is compiled under the step itself: rendered first, the row's fields go over it.
  const rendered = renderTemplate(step.input, step, it);
  const body: SubmissionBody = { input: row?.input === undefined ? rendered : { ...rendered, ...row.input } };
  const policy = policyOf(step, row);
  const traceBytes = row?.inputBytes;
  const webhook = webhookOf(step, it, row);
  if (webhook !== undefined) body.webhook = webhook;
  if (policy) body.policy = { ...policy };
  if (step.s3Config) body.s3Config = { ...step.s3Config };
  const bytes = step.payloadBytes ?? traceBytes;
  if (bytes === undefined) return { body };
  // A trace's size is what the job was sent with: a body that cannot be padded to it (as large
  // already, or within the padding field's few bytes of it) goes as it is.
  const sized = step.payloadBytes === undefined ? paddedSubmission(bytes, body) : sizedSubmission(bytes, body);
  if (sized === undefined) return { body };
  // A sized body is sent as bytes, so the facts the client would read from it are handed over.
  const facts: RequestFacts = {};
  if (webhook !== undefined) facts.webhook = webhook;
  if (policy?.ttl !== undefined) facts.ttl = policy.ttl;
  if (policy?.executionTimeout !== undefined) facts.executionTimeout = policy.executionTimeout;
  if (policy?.lowPriority !== undefined) facts.lowPriority = policy.lowPriority;
  return { body: sized, facts };
}
