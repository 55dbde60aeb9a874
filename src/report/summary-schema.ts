import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError } from '../core/config-error.js';
import { EXPORT_KINDS } from '../core/export-kind.js';
import { JOB_STATUSES } from '../core/job-status.js';
import { MANAGEMENT_OPERATIONS, QUEUE_OPERATIONS } from '../core/operation.js';
import { OUTCOMES } from '../metrics/outcome.js';
import { FIGURE_NAMES } from '../metrics/scaling-figures.js';
import { SUMMARY_VERSION, type Summary } from './summary.js';
import { capsSchema } from './caps-schema.js';
import { TOKEN_DEFINITIONS } from '../metrics/token-timing.js';
import { judgeVerdict } from './verdict.js';

/**
 * The schema summary.json is checked against when read back (`jobstorm report`, `jobstorm merge`):
 * a hand-edited or truncated file is a configuration error naming the file and key, not a crash
 * deep inside a renderer.
 */
const count = z.number().int().nonnegative();
const counts = z.record(z.string(), count);
const ms = z.number();
const percentiles = z.object({ count, min: ms, mean: ms, p50: ms, p90: ms, p95: ms, p99: ms, max: ms });
const encoded = z.string();
const byFinal = <T extends z.ZodType>(t: T) =>
  z.object({ COMPLETED: t, FAILED: t, CANCELLED: t, TIMED_OUT: t });

const outcome = z.object({ count, intended: encoded, sent: encoded, latency: percentiles });
const outcomes = z.object(
  Object.fromEntries(OUTCOMES.map((o) => [o, outcome.optional()])) as Record<
    (typeof OUTCOMES)[number],
    z.ZodOptional<typeof outcome>
  >,
);

const operation = z.object({
  requests: count,
  rate: z.number().nonnegative(),
  count429: count,
  count4xx: count,
  count5xx: count,
  countErrors: count,
  byStatus: counts,
  errors: counts,
  reqBytes: count,
  resBytes: count,
  latency: percentiles,
  latencyFromSent: percentiles,
  outcomes,
  probe4xx: count.optional(),
});

const timing = z.object({ percentiles, histogram: encoded });

const tokenGroup = z.object({
  path: z.enum(['openai', 'stream']),
  counted: z.enum(['tokens', 'chunks']),
  answers: count,
  outputTokens: z.number().nonnegative(),
  throughput: z.number().nonnegative().nullable(),
  ttft: timing,
  itl: timing,
  tpot: timing,
  e2e: timing,
  perSecond: timing,
  queue: timing.optional(),
  toFirstAfterQueue: timing.optional(),
  queueCold: timing.optional(),
  queueWarm: timing.optional(),
});

const tokensSchema = z.object({
  definition: z.enum(TOKEN_DEFINITIONS),
  objectives: z.object({
    ttftMs: ms.optional(),
    tpotMs: ms.optional(),
    itlMs: ms.optional(),
    e2eMs: ms.optional(),
  }),
  groups: z.array(tokenGroup),
  goodput: z.object({
    judged: count,
    good: count,
    share: z.number().min(0).max(1).nullable(),
    perSecond: z.number().nonnegative().nullable(),
  }),
});

const jobs = z.object({
  submitted: count,
  retried: count,
  lost: count,
  unfinished: count,
  untracked: count,
  byState: byFinal(count),
  delayTime: timing,
  executionTime: timing,
  firstChunk: timing,
  e2eAll: percentiles,
  e2e: byFinal(timing),
});

const violation = z.object({
  id: z.string(),
  severity: z.enum(['error', 'warning']),
  at: z.number(),
  message: z.string(),
  op: z.enum([...QUEUE_OPERATIONS, ...MANAGEMENT_OPERATIONS]).optional(),
  jobId: z.string().optional(),
  evidence: z.object({
    seq: z.number().int().optional(),
    request: z.string().optional(),
    status: z.number().optional(),
    body: z.string().optional(),
    timeline: z
      .array(
        z.object({
          at: z.number(),
          op: z.enum([...QUEUE_OPERATIONS, ...MANAGEMENT_OPERATIONS, 'webhook']),
          status: z.union([z.enum(JOB_STATUSES), z.number()]).optional(),
        }),
      )
      .optional(),
  }),
  repro: z.string().optional(),
  known: z.object({ entry: count, expired: z.literal(true).optional() }).optional(),
});

const operationName = z.enum([...QUEUE_OPERATIONS, ...MANAGEMENT_OPERATIONS]);

/** summary.json `known`: written since issue 53, absent in older summaries and runs without --known. */
const knownSchema = z.object({
  file: z.string(),
  entries: z.array(
    z.object({
      check: z.string(),
      operation: operationName.optional(),
      status: z.number().int().optional(),
      message: z.string().optional(),
      why: z.string(),
      who: z.string(),
      expires: z.string().optional(),
      findings: count,
      state: z.enum(['matched', 'expired', 'unseen']),
    }),
  ),
});

const series = z.object({
  startSec: z.number().int(),
  length: count,
  requests: z.array(count),
  r429: z.array(count),
  errors: z.array(count),
  busyUs: z.array(count),
  submitted: z.array(count),
  dropped: z.array(count),
  due: z.array(count).optional(),
  sent: z.array(count).optional(),
  finals: byFinal(z.array(count)),
  workers: z.array(z.number().nullable()),
  queue: z.array(z.number().nullable()),
  ops: z.record(
    z.string(),
    z.object({
      requests: z.array(count),
      latency: z.array(encoded),
      outcomes: z.partialRecord(z.enum(OUTCOMES), z.array(count)).optional(),
      unanswered: z.array(encoded).optional(),
      p50: z.array(ms.nullable()),
      p99: z.array(ms.nullable()),
    }),
  ),
});

const nullableMs = z.number().nullable();
const episodeEnd = z.enum(['scaled', 'drained', 'open']);
const scalingSchema = z.object({
  asked: count,
  samples: z.object({
    atMs: z.array(z.number()),
    idle: z.array(count),
    running: z.array(count),
    initializing: z.array(count.nullable()),
    throttled: z.array(count.nullable()),
    inQueue: z.array(count),
    inProgress: z.array(count),
  }),
  delayUs: z.array(z.tuple([z.number().int(), count])),
  lastArrivalMs: nullableMs,
  lowPriorityQueued: z.array(z.tuple([z.number(), nullableMs])).optional(),
  pricePerWorkerSecond: z.number().nonnegative().optional(),
  currency: z.string().optional(),
  figures: z.object({
    samples: count,
    episodes: z.array(
      z.object({ at: z.number(), end: episodeEnd, durationMs: z.number(), from: count, to: count }),
    ),
    scaleUpLagMs: z.array(z.number()),
    drainMs: nullableMs,
    coldStartShare: z.number().min(0).max(1).nullable(),
    coldStartMs: nullableMs,
    peakWorkers: nullableMs,
    meanWorkers: nullableMs,
    workerSeconds: nullableMs,
    cost: nullableMs,
    costPer1kJobs: nullableMs,
    currency: z.string().optional(),
    notMeasured: z.partialRecord(z.enum(FIGURE_NAMES), z.string()),
  }),
});

export const summarySchema = z.object({
  version: z.literal(SUMMARY_VERSION),
  run: z.object({
    id: z.string(),
    scenario: z.string(),
    target: z.string(),
    start: z.string(),
    startMs: z.number(),
    durationMs: z.number().nonnegative(),
    shard: z.string().nullable(),
    shards: z.array(z.string()),
    ownsEndpoint: z.boolean(),
    // Summaries written before verdicts existed ended as far as they knew.
    end: z
      .enum(['completed', 'interrupted', 'unreachable', 'output-failed', 'shard-failed', 'aborted'])
      .default('completed'),
    aborted: z.object({ threshold: z.string(), at: z.number().int() }).optional(),
    iterationsCut: count.optional(),
    connectionWait: z
      .object({ arrivals: count, longestMs: z.number().nonnegative(), connections: count })
      .optional(),
    generator: z
      .object({
        latenessP99Ms: z.number().nonnegative(),
        loopDelayP99Ms: z.number().nonnegative(),
        busyMax: z.number().min(0).max(1),
      })
      .optional(),
    forced: z.array(z.string()).optional(),
    failure: z.string().optional(),
    startAt: z
      .object({
        at: z.string(),
        via: z.enum(['barrier', 'start-at']),
        lateMs: z.number().nonnegative().optional(),
      })
      .optional(),
    stoppedBy: z.object({ shard: z.string(), reason: z.string(), at: z.string().optional() }).optional(),
    startSpreadMs: z.number().nonnegative().optional(),
    missingShards: z.array(z.string()).optional(),
  }),
  operations: z.record(z.string(), operation),
  jobs,
  errors: counts,
  dropped: z.object({ total: count, byFlow: counts }),
  stalls: z
    .array(
      z.object({
        at: z.number(),
        durationMs: count,
        inFlight: count,
        failed: z.record(z.string(), count).optional(),
      }),
    )
    .optional(),
  generatorLimited: z
    .array(
      z.object({
        at: z.number(),
        durationMs: count,
        busy: z.number().min(0).max(1),
        loopDelayP99Ms: z.number().nonnegative(),
        latenessP99Ms: z.number().nonnegative(),
        cpuShare: z.number().nonnegative().optional(),
      }),
    )
    .optional(),
  warmup: z.object({ ms: z.number().positive(), requests: count, dropped: count }).optional(),
  webhooks: z.object({ received: count, byAnswer: counts }),
  violations: z.array(
    z.object({
      id: z.string(),
      severity: z.enum(['error', 'warning']),
      count,
      known: count.optional(),
      entries: counts.optional(),
      exchanges: z
        .array(z.object({ op: z.string().optional(), status: z.number().int().optional(), count }))
        .optional(),
      examples: z.array(violation),
    }),
  ),
  checks: z.array(z.string()),
  checkDescriptions: z.record(z.string(), z.string()).optional(),
  checkNotes: z.record(z.string(), z.string()).optional(),
  skipped: z.record(z.string(), z.string()).optional(),
  known: knownSchema.optional(),
  thresholds: z.array(
    z.object({
      expression: z.string(),
      value: z.number().nullable(),
      ok: z.boolean(),
      unit: z.enum(['ms', 'ratio', 'count', 'rps']),
      window: z
        .object({
          seconds: z.number().int().positive(),
          judged: count,
          failed: count,
          worst: z.object({ at: z.number().int(), value: z.number() }).nullable(),
          failing: z.array(z.tuple([z.number().int(), z.number().int()])),
        })
        .optional(),
      wholeRun: z.object({ value: z.number().nullable(), ok: z.boolean() }).optional(),
      notEvaluated: z.string().optional(),
    }),
  ),
  series,
  coverage: z.record(z.string(), count).default({}),
  preflight: z.array(z.object({ check: z.string(), ok: z.boolean(), detail: z.string() })).optional(),
  verdict: z
    .object({
      status: z.enum(['passed', 'failed', 'inconclusive', 'unreachable', 'interrupted']),
      reasons: z.array(z.string()),
      generatorLimited: z.literal(true).optional(),
    })
    .optional(),
  workers: z
    .object({
      processes: count,
      rows: z.array(
        z.object({
          id: z.string(),
          state: z.string(),
          coldStartMs: z.number(),
          taken: count,
          completed: count,
          failed: count,
          handlerMs: z.number().nonnegative(),
          stopsSent: count,
          lateResults: count,
          rejectedResults: count,
          lostJobs: count,
          exitCode: z.number().int().nullable().optional(),
        }),
      ),
    })
    .optional(),
  exports: z
    .array(
      z.object({
        kind: z.enum(EXPORT_KINDS),
        url: z.string(),
        sent: count,
        dropped: count,
        lastError: z.string().optional(),
      }),
    )
    .optional(),
  scaling: scalingSchema.optional(),
  tokens: tokensSchema.optional(),
  caps: capsSchema.optional(),
});

/** Validates parsed JSON as a summary; `file` names it in every issue. */
export function parseSummary(json: unknown, file: string): Summary {
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof json === 'object' && json !== null && version !== SUMMARY_VERSION) {
    throw new ConfigError([
      {
        where: `${file}: version`,
        message: `unsupported summary version ${JSON.stringify(version)}; this jobstorm reads version ${SUMMARY_VERSION}`,
      },
    ]);
  }
  const result = summarySchema.safeParse(json);
  // The verdict is derived: judged again from the data read, so a hand-edited one cannot stand.
  if (result.success) {
    const data = { ...result.data, verdict: { status: 'passed' as const, reasons: [] } } satisfies Summary;
    return { ...data, verdict: judgeVerdict(data) };
  }
  throw new ConfigError(
    result.error.issues.slice(0, 20).map((i) => ({
      where: `${file}: ${i.path.length ? i.path.join('.') : '(top level)'}`,
      message: i.message,
    })),
  );
}

export async function readSummary(file: string): Promise<Summary> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ where: file, message: `cannot read summary: ${(err as Error).message}` }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([{ where: file, message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return parseSummary(json, file);
}
