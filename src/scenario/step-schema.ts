import { z } from 'zod';
import { JOB_STATUSES } from '../core/index.js';
import { ByteSizeSchema, DurationSchema, PositiveDurationSchema } from './field-schemas.js';

/*
 * The steps of a flow. Each step is an object with exactly one key naming the step. Request bodies
 * are checked here for shape only: the ranges of policy values belong to the contract, and the
 * runner validates the body it builds (a limits scenario may send out-of-range values on purpose).
 */

const JobStatusSchema = z.enum(JOB_STATUSES);

const PolicySchema = z
  .strictObject({
    executionTimeout: DurationSchema.optional().describe(
      'policy.executionTimeout: how long the job may execute (sent as milliseconds).',
    ),
    ttl: DurationSchema.optional().describe(
      'policy.ttl: total lifespan of the job from submission (sent as milliseconds).',
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

const submission = {
  input: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "The job's input object. String values may use {{row.field}}, {{iteration}}, {{flow}} and {{random:min:max}}. " +
        "The emulator's handler reads sleep_ms, fail, stream (chunk count), chunk_bytes and output_bytes.",
    ),
  webhook: z
    .union([z.literal(true), z.string().min(1)])
    .optional()
    .describe("Webhook URL, or true for the runner's own loopback receiver."),
  policy: PolicySchema.optional(),
  s3Config: S3ConfigSchema.optional(),
  payloadBytes: ByteSizeSchema.optional().describe(
    'Pad the request body to about this many bytes (a padding string in input).',
  ),
};

const RunSchema = z
  .strictObject(submission)
  .nullable()
  .describe('POST /run: submit an asynchronous job; later steps act on it.');

const RunsyncSchema = z
  .strictObject({
    ...submission,
    wait: DurationSchema.optional().describe(
      '?wait= for /runsync (sent as milliseconds; the service defaults to 90s).',
    ),
  })
  .nullable()
  .describe('POST /runsync: submit and wait for the result; later steps act on the job.');

const PollSchema = z
  .strictObject({
    until: z
      .enum(['final', ...JOB_STATUSES])
      .default('final')
      .describe('Stop polling when the job reaches a final state (final) or this state.'),
    interval: PositiveDurationSchema.default(500).describe('Time between two /status calls.'),
    backoff: z
      .number()
      .min(1)
      .default(1)
      .describe('Multiply the interval by this after each poll (1 = fixed interval).'),
    maxInterval: PositiveDurationSchema.default(5000).describe(
      'Upper bound of the interval when backing off.',
    ),
    timeout: PositiveDurationSchema.default(60_000).describe(
      'Give up polling after this long (recorded as a poll timeout).',
    ),
  })
  .nullable()
  .describe("GET /status repeatedly until the flow's job reaches a state.");

const StreamSchema = z
  .strictObject({
    timeout: PositiveDurationSchema.default(60_000).describe('Give up after this long.'),
    interval: PositiveDurationSchema.default(100).describe('Time between two /stream calls.'),
  })
  .nullable()
  .describe('GET /stream until the job is final; records time to first chunk and the gaps between chunks.');

const CancelSchema = z
  .strictObject({
    after: DurationSchema.optional().describe('Cancel this long after the job was submitted.'),
    when: JobStatusSchema.optional().describe('Cancel once a /status poll sees this state.'),
  })
  .nullable()
  .describe("POST /cancel the flow's job: at once ({}), after a delay, or when a state is seen.");

const NoOptions = z.strictObject({}).nullable();

const StatusSchema = z
  .strictObject({
    ttl: DurationSchema.optional().describe(
      '?ttl= for /status: set the job time-to-live (sent as milliseconds).',
    ),
  })
  .nullable()
  .describe("GET /status of the flow's job once.");

const SleepSchema = z
  .union([
    DurationSchema,
    z.strictObject({
      min: DurationSchema.describe('Shortest think time.'),
      max: DurationSchema.describe('Longest think time.'),
    }),
  ])
  .describe('Think time: a fixed duration or a uniform range {min, max}.');

export const PROBE_NAMES = ['limits', 'auth', 'management', 'requests'] as const;

const ProbeSchema = z
  .enum(PROBE_NAMES)
  .describe(
    "The checker's edge probes: limits (payload, wait, ttl, executionTimeout edges), auth (missing/wrong key, both header forms) management (StartPod of an unknown pod, CreateEndpoint with an invalid body: both must be refused with 400, and change nothing), or requests (what partial servers get wrong: /status of a job id that never existed must be 404, a body without input must be 400, /status and /stream must answer GET).",
  );

const LoopSchema = z
  .strictObject({
    times: z.number().int().min(1).describe('How many times to run the steps.'),
    get steps(): z.ZodArray<typeof StepSchema> {
      return z.array(StepSchema).min(1).describe('The steps to repeat.');
    },
  })
  .describe('Repeat steps a number of times (loops nest at most 3 deep).');

const BlastSchema = z
  .strictObject({
    op: z
      .enum(['health', 'status', 'run'])
      .describe(
        "The one operation to saturate: /health, /status of the flow's job, or /run with an empty input.",
      ),
    duration: PositiveDurationSchema.describe('How long to blast.'),
    rate: z
      .number()
      .positive()
      .optional()
      .describe('Requests per second over all connections; absent: flat out.'),
    connections: z.number().int().min(1).max(1024).default(16).describe('Connections autocannon keeps open.'),
  })
  .describe(
    'Saturate one operation with autocannon (rate-limit probes, raw throughput); every answer is a record like any other.',
  );

export const OPENAI_PATHS = ['chat/completions', 'completions', 'models'] as const;

const OpenAiSchema = z
  .strictObject({
    path: z
      .enum(OPENAI_PATHS)
      .default('chat/completions')
      .describe(
        'The route under /openai/v1/: chat/completions and completions are POSTed with the body; models is a GET.',
      ),
    body: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'The request body as the OpenAI API takes it (model, messages or prompt, max_tokens...). String values may use {{row.field}}, {{iteration}}, {{flow}} and {{random:min:max}}.',
      ),
    stream: z
      .boolean()
      .default(false)
      .describe(
        'Send stream: true and read the answer as server-sent events; records time to first token, tokens per second and the longest gap between tokens.',
      ),
  })
  .superRefine((o, ctx) => {
    if (o.path === 'models' && (o.body !== undefined || o.stream))
      ctx.addIssue({
        code: 'custom',
        path: [o.body === undefined ? 'stream' : 'body'],
        message: 'openai path models is a GET: it takes no body and does not stream',
      });
    if (o.path !== 'models' && o.body === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['body'],
        message: `openai path ${o.path} needs a body (at least model and ${o.path === 'completions' ? 'prompt' : 'messages'})`,
      });
  })
  .describe(
    'POST /openai/v1/<path> (the OpenAI-compatible API): a completion that runs as a job on the endpoint.',
  );

/** Each step's payload schema, by step name (the dispatcher validates a step against one of these). */
export const STEP_PAYLOADS = {
  run: RunSchema,
  runsync: RunsyncSchema,
  poll: PollSchema,
  stream: StreamSchema,
  cancel: CancelSchema,
  retry: NoOptions.describe("POST /retry the flow's job (it must be FAILED or TIMED_OUT)."),
  status: StatusSchema,
  purge: NoOptions.describe('POST /purge-queue.'),
  health: NoOptions.describe('GET /health.'),
  sleep: SleepSchema,
  advance: PositiveDurationSchema.describe(
    "Advance the emulator's manual clock (needs emulator.clock: manual).",
  ),
  loop: LoopSchema,
  probe: ProbeSchema,
  blast: BlastSchema,
  openai: OpenAiSchema,
  requests: NoOptions.describe("GET /requests: the endpoint's recent requests."),
} as const;

export type StepName = keyof typeof STEP_PAYLOADS;

export const STEP_NAMES = Object.keys(STEP_PAYLOADS) as StepName[];

export const StepSchema = z
  .union([
    z.strictObject({ run: STEP_PAYLOADS.run }),
    z.strictObject({ runsync: STEP_PAYLOADS.runsync }),
    z.strictObject({ poll: STEP_PAYLOADS.poll }),
    z.strictObject({ stream: STEP_PAYLOADS.stream }),
    z.strictObject({ cancel: STEP_PAYLOADS.cancel }),
    z.strictObject({ retry: STEP_PAYLOADS.retry }),
    z.strictObject({ status: STEP_PAYLOADS.status }),
    z.strictObject({ purge: STEP_PAYLOADS.purge }),
    z.strictObject({ health: STEP_PAYLOADS.health }),
    z.strictObject({ sleep: STEP_PAYLOADS.sleep }),
    z.strictObject({ advance: STEP_PAYLOADS.advance }),
    z.strictObject({ loop: STEP_PAYLOADS.loop }),
    z.strictObject({ probe: STEP_PAYLOADS.probe }),
    z.strictObject({ blast: STEP_PAYLOADS.blast }),
    z.strictObject({ openai: STEP_PAYLOADS.openai }),
    z.strictObject({ requests: STEP_PAYLOADS.requests }),
  ])
  .describe('A step: an object with exactly one key naming it.')
  .meta({ id: 'Step' });

export type StepInput = z.input<typeof StepSchema>;
export type StepOutput = z.output<typeof StepSchema>;
