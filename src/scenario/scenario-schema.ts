import { TOKEN_DEFINITIONS, type TokenSettings } from '../core/token-definition.js';
import { z } from 'zod';
import { StepSchema } from '../steps/index.js';
import { EXPORT_KINDS, exportKindHelp, exportUrlHelp } from '../core/export-kind.js';
import { DurationSchema, PositiveDurationSchema, durationText } from './field-schemas.js';
import { PhaseSchema } from './phase-schema.js';
import { WorkerSchema } from './worker-schema.js';
import { ScalingSchema } from './scaling-schema.js';
import { ChecksSchema } from './checks-schema.js';

/*
 * The scenario file format. Defaults live here so that the JSON Schema shows them to editors and
 * the typed result never has holes. `prefault` (not `default`) on objects, so that an absent
 * section still gets its fields' defaults.
 */

const TargetSchema = z
  .strictObject({
    auth: z
      .enum(['bearer', 'bare', 'none'])
      .default('bearer')
      .describe(
        'Authorization header form: "Bearer <key>", the bare key, or none for a target without authentication.',
      ),
    connections: z.number().int().min(1).default(64).describe('Keep-alive connection pool size.'),
    timeout: PositiveDurationSchema.optional().describe(
      durationText(
        'One request timeout for every operation. Left out: 10s for quick calls (/status, /cancel, /health...), 30s for /run, the wait plus 10s for /runsync and /status-sync.',
        '30s',
      ),
    ),
    stallAfter: PositiveDurationSchema.prefault('5s').describe(
      durationText(
        'Requests waiting this long with no answer from the target at all: reported as a stall (and the wind-down does not wait on it).',
        '5s',
      ),
    ),
    maxInFlight: z
      .number()
      .int()
      .min(1)
      .default(1000)
      .describe(
        'At most this many arrivals in flight (flow iterations running, and arrivals waiting for a free connection); arrivals beyond it are dropped and counted.',
      ),
    retry429: z
      .strictObject({
        attempts: z.number().int().min(1).default(3).describe('Extra attempts after a 429.'),
        base: PositiveDurationSchema.prefault('100ms').describe(
          durationText('First backoff; doubles each attempt, with jitter.', '100ms'),
        ),
        max: PositiveDurationSchema.prefault('5s').describe(
          durationText('Longest backoff (a longer Retry-After still wins).', '5s'),
        ),
      })
      .optional()
      .describe(
        'Retry 429 answers with exponential backoff and jitter, honouring Retry-After. Each attempt is its own record.',
      ),
    adapt: z
      .boolean()
      .default(true)
      .describe(
        "An operation the target serves, but to another method than the contract's (405 with Allow, or GET refused where POST answers): true reports it once (request.method) and goes on sending it the way the target takes it, marked adaptedFrom in the records, so its jobs are still followed and judged; false (a strict run, --strict) stops sending it.",
      ),
  })
  .prefault({})
  .describe('Target defaults; command-line flags override them.');

const EmulatorSchema = z
  .strictObject({
    workersMin: z.number().int().min(0).default(0).describe('Workers kept warm.'),
    workersMax: z.number().int().min(0).default(10).describe('Most workers the endpoint scales to.'),
    requestsPerWorker: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Dynamic rate limit: running workers × this.'),
    idleTimeout: DurationSchema.prefault('5s').describe(
      durationText('Idle time before a worker scales down.', '5s'),
    ),
    coldStart: DurationSchema.prefault('200ms').describe(
      durationText('Delay before a new worker takes jobs.', '200ms'),
    ),
    clock: z.enum(['real', 'manual']).default('real').describe('manual: time moves only with advance steps.'),
    streamShape: z
      .enum(['envelope', 'array'])
      .default('envelope')
      .describe('/stream answers {status, stream:[…]} or a bare array.'),
    faults: z
      .array(z.string().min(1))
      .default([])
      .describe('Named emulator faults to switch on (each breaks one rule).'),
    profile: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Handler profile used when a job's input does not say."),
  })
  .prefault({})
  .describe('Options for the embedded emulator; ignored against a real target.');

export const ARRIVAL_PROCESS_NAMES = ['uniform', 'poisson', 'gamma'] as const;

const ArrivalsSchema = z
  .strictObject({
    process: z
      .enum(ARRIVAL_PROCESS_NAMES)
      .default('uniform')
      .describe(
        'Evenly spaced arrivals, a Poisson process, or gamma-distributed gaps (vLLM bench serve --burstiness): see burstiness.',
      ),
    seed: z
      .number()
      .int()
      .min(0)
      .default(1)
      .describe('Seed of the poisson and gamma processes; the same seed gives the same arrivals.'),
    burstiness: z
      .number()
      .positive()
      .max(1000)
      .optional()
      .describe(
        "gamma only: the shape of the gaps, at the same mean rate. 1 is a Poisson process; below 1 arrivals clump with quiet spells between (0.5: gaps vary √2 times as much as Poisson's); above 1 they are more regular. Default 1.",
      ),
  })
  .refine((a) => a.burstiness === undefined || a.process === 'gamma', {
    message: 'burstiness shapes the gamma process only: add process: gamma, or remove burstiness',
    path: ['burstiness'],
  })
  .prefault({})
  .describe('How arrivals are spread in time (open model).');

const FlowSchema = z
  .strictObject({
    name: z.string().min(1).describe('Flow name, used in records and reports.'),
    weight: z.number().positive().default(1).describe('Relative share of arrivals that run this flow.'),
    steps: z.array(StepSchema).min(1).describe('What one iteration of the flow does, in order.'),
  })
  .describe('A weighted sequence of steps.');

const DataSchema = z
  .strictObject({
    file: z
      .string()
      .min(1)
      .describe('CSV (with a header row) or JSON lines file, relative to the scenario file.'),
    order: z
      .enum(['sequential', 'random'])
      .default('sequential')
      .describe('How rows are handed to iterations.'),
  })
  .describe('A feed of rows for {{row.field}} in inputs.');

/*
 * Tags become labels on every exported series (Prometheus label names; OTLP takes them as they are).
 * The names jobstorm's own labels use are taken, as are Prometheus' reserved `__` names.
 */
const RESERVED_TAGS = [
  'run_id',
  'scenario',
  'shard',
  'operation',
  'method',
  'status_code',
  'error_type',
  'flow',
  'state',
  'check',
  'severity',
  'worker_state',
  'queue_state',
  'le',
  'job',
  'instance',
];
const TAG_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TagsSchema = z.record(z.string(), z.string()).superRefine((tags, ctx) => {
  for (const key of Object.keys(tags)) {
    if (!TAG_NAME.test(key))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `tag name "${key}": letters, digits and _ only, not starting with a digit`,
      });
    else if (key.startsWith('__') || RESERVED_TAGS.includes(key))
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `tag name "${key}" is taken (names starting with __ and ${RESERVED_TAGS.join(', ')})`,
      });
  }
});

const ExportSchema = z
  .strictObject({
    kind: z.enum(EXPORT_KINDS).describe(exportKindHelp()),
    url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).describe(exportUrlHelp()),
  })
  .describe(
    'A live metrics output; auth headers come from the environment (--export-header), never from this file.',
  );

/** A threshold held over every window of `window`, and judged live to stop the run when `abortOnFail`. */
const ThresholdObjectSchema = z
  .strictObject({
    threshold: z.string().min(1).describe('The expression, e.g. "p99(runsync) < 1s".'),
    window: PositiveDurationSchema.optional().describe(
      durationText('Held over every window this long (whole seconds).', '5s'),
    ),
    abortOnFail: z
      .boolean()
      .optional()
      .describe('Judged every second while the run goes; the run stops when it fails.'),
    delayAbortEval: DurationSchema.optional().describe(
      durationText('Live judging for abortOnFail starts this long into the run.', '10s'),
    ),
  })
  .transform((t) => ({
    threshold: t.threshold,
    windowMs: t.window,
    abortOnFail: t.abortOnFail,
    delayAbortEvalMs: t.delayAbortEval,
  }));

/** Token timings of streamed LLM answers: whose formulas, and the objectives goodput counts against. */
const LlmSchema = z
  .strictObject({
    definitions: z
      .enum(TOKEN_DEFINITIONS)
      .default('jobstorm')
      .describe(
        "Whose formulas ITL and TPOT follow: jobstorm (a chunk's gap spread over its tokens), vllm (vLLM bench serve), aiperf (NVIDIA AIPerf) or guidellm. See docs/llm.md.",
      ),
    objectives: z
      .strictObject({
        ttft: PositiveDurationSchema.optional().describe(
          durationText('Time to first token at most this.', '500ms'),
        ),
        tpot: PositiveDurationSchema.optional().describe(
          durationText('Time per output token at most this.', '50ms'),
        ),
        itl: PositiveDurationSchema.optional().describe(
          durationText('Every inter-token latency of the answer at most this.', '100ms'),
        ),
        e2e: PositiveDurationSchema.optional().describe(
          durationText('Send → last token at most this.', '10s'),
        ),
      })
      .default({})
      .describe('Per-request objectives; goodput counts the streamed requests that met every one set.'),
  })
  .transform((l): TokenSettings => ({
    definition: l.definitions,
    objectives: {
      ttftMs: l.objectives.ttft,
      tpotMs: l.objectives.tpot,
      itlMs: l.objectives.itl,
      e2eMs: l.objectives.e2e,
    },
  }))
  .optional()
  .describe(
    'Token timings of streamed LLM answers (/openai streams, jobs read through /stream): docs/llm.md.',
  );

export const ScenarioSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of this JSON Schema, for editors.'),
    name: z.string().min(1).describe('Scenario name, used in reports.'),
    description: z.string().optional().describe('What the scenario is for.'),
    target: TargetSchema,
    emulator: EmulatorSchema,
    worker: WorkerSchema,
    scaling: ScalingSchema,
    arrivals: ArrivalsSchema,
    phases: z.array(PhaseSchema).min(1).describe('Load phases, run one after another.'),
    warmup: DurationSchema.prefault('0s').describe(
      durationText(
        'The start of the schedule that is sent and checked but not measured, e.g. 5s: requests intended then are left out of the latencies, counts, rates and thresholds (connection set-up, JIT, cold starts), and jobs submitted then are not followed. Contract violations in it still count. Must be shorter than the phases.',
        '5s',
      ),
    ),
    flows: z.array(FlowSchema).min(1).describe('Weighted flows; each arrival runs one.'),
    data: DataSchema.optional(),
    llm: LlmSchema,
    thresholds: z
      .array(z.union([z.string().min(1), ThresholdObjectSchema]))
      .default([])
      .describe(
        'Pass/fail rules, e.g. "p99(run) < 500ms", "rate(429) < 1%", "p99(run) < 1s over 30s" (over every 30 s window), or {threshold, window, abortOnFail, delayAbortEval}.',
      ),
    tags: TagsSchema.default({}).describe(
      'Labels put on every exported metric series, e.g. {team: jobs, env: staging}.',
    ),
    export: z
      .array(ExportSchema)
      .default([])
      .describe('Live metrics outputs, streamed while the run goes (also --export).'),
    compare: z
      .strictObject({
        gates: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'Gates on the change from a baseline run, e.g. "delta(p99(run)) < 10%", "new(violations) == 0".',
          ),
        significance: z
          .number()
          .gt(0)
          .lt(1)
          .optional()
          .describe('A gate fails only on a change significant at this level, e.g. 0.95.'),
      })
      .optional()
      .describe('What `jobstorm compare --scenario` gates on.'),
    checks: ChecksSchema,
  })
  .describe('A jobstorm scenario.');

/** What a scenario file (or defineScenario) may contain. */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
/** The schema's output, before normalization into `Scenario`. */
export type ScenarioOutput = z.output<typeof ScenarioSchema>;
