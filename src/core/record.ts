import type { Operation } from './operation.js';
import type { RequestError } from './request-error.js';
import type { ScalingExpectation } from './scaling-expectation.js';
import type { KnownDeviations, SkippedCheck } from './known-deviation.js';

/**
 * Records are the only output of a run: every report, metric and check is computed from them
 * (DESIGN "Records"). They are flat and versioned; `records.ndjson` is one per line, starting with
 * a `run` record. Times are milliseconds since the run's start on a monotonic clock; the `run`
 * record anchors them to the wall clock.
 */
export const RECORD_VERSION = 1;

/** The flow name of the preflight's requests, which run before the load. */
export const PREFLIGHT_FLOW = '_preflight';

/**
 * A request sent to be refused: a probe (`req.probe`) or the preflight (a made-up job id). Their
 * 4xx answers are the contract working, and the reports count them apart.
 */
export function sentToBeRefused(r: ExchangeRecord): boolean {
  return r.req?.probe !== undefined || r.flow === PREFLIGHT_FLOW;
}

/** What the runner knows about the request it sent, so checks need not re-parse bodies. */
export interface RequestFacts {
  /** How the key was sent: a good key in either form, or on purpose missing or wrong. */
  auth?: 'bearer' | 'bare' | 'missing' | 'wrong' | 'none';
  wait?: number;
  ttl?: number;
  executionTimeout?: number;
  lowPriority?: boolean;
  webhook?: string;
  /** A `/status?ttl=` override. */
  statusTtl?: number;
  /** The label of a limits or auth probe, e.g. `payload.run.inside`. */
  probe?: string;
  /** What the contract expects of a probe: accepted (2xx) or rejected (4xx). */
  expect?: 'accept' | 'reject';
  /** An `/openai/*` request that asked for a streamed answer (`stream: true`): judged for goodput. */
  stream?: boolean;
  /** Handler-simulation keys the job was given (`sleep_ms`, `stream`, `fail`...). */
  sleepMs?: number;
  /**
   * The contract's method for this operation, when the request was sent with another one because
   * the target was found to take only that (`request.method`, reported once; the run adapts).
   */
  adaptedFrom?: string;
}

/**
 * What arrived on a server-sent-events answer (`/openai/*` with `stream: true`): the framing the
 * checks judge and the token timings the reports show. Times are on the run's clock.
 */
export interface SseFacts {
  /** `data:` events before `data: [DONE]` (role, token, final and error events alike). */
  events: number;
  /** Events that carried generated text (a token each: the OpenAI chunks stream one at a time). */
  tokens: number;
  /** Events whose data did not parse as JSON. */
  badEvents: number;
  /** The first such data, cut to 200 characters. */
  badExample?: string;
  /** `data: [DONE]` arrived. */
  done: boolean;
  /** Events after `[DONE]`. */
  afterDone: number;
  /** An `{"error": ...}` event came (the service gave up mid-stream). */
  errorEvent?: boolean;
  /** When the first and the last token arrived: time to first token is `firstTokenAt - sentAt`. */
  firstTokenAt?: number;
  lastTokenAt?: number;
  /** Longest time between two successive tokens. */
  maxGapMs?: number;
}

/**
 * Generated output an answer carried, as it arrived: the text events of an OpenAI stream (each
 * socket read that completed some is one arrival) or the chunks of one `/stream` read (one
 * arrival, at its end). The token timings (TTFT, ITL, TPOT, goodput) are computed from these, so a
 * report's figure can be recomputed from the records under any definition (docs/llm.md).
 */
export interface OutputFacts {
  /**
   * What `arrivals` count: `tokens` (the chunks' token lists, or the server's usage per chunk), or
   * `chunks` (streamed deltas or chunks, whatever each carried). Never mixed in one answer.
   */
  unit: 'tokens' | 'chunks';
  /** `[time on the run's clock, pieces of output]` for each arrival, in order. */
  arrivals: [number, number][];
  /**
   * The server's own count of output tokens (a `usage`), cumulative, as of the end of this answer:
   * an OpenAI stream's final usage chunk, a `/stream` chunk's `usage.output`.
   */
  usageTokens?: number;
}

export interface ExchangeRecord {
  v: typeof RECORD_VERSION;
  type: 'exchange';
  seq: number;
  op: Operation;
  method: string;
  /** Path and query as sent, relative to the target base, never with credentials. */
  path: string;
  intendedAt: number;
  /**
   * When the request was handed to the connection pool (the clock starts here, as the user sees it).
   * An arrival that came while every connection was busy waited for one before its flow started:
   * its first request's `sentAt` is when one was free, and `sentAt - intendedAt` includes the wait.
   */
  sentAt: number;
  /**
   * How long it then waited in the pool for a free connection (or for a new one to open), when
   * 1 ms or more: the service cannot have read it before `sentAt + queuedMs` (see `writtenAt`).
   */
  queuedMs?: number;
  firstByteAt?: number;
  endAt: number;
  /**
   * jobstorm's own event loop had not run for this long when it read the answer (a stopped or
   * starved process, a long GC pause): the answer may have come in up to this much before
   * `endAt` (see `earliestEndAt`). Present only for a gap of 200 ms or more.
   */
  loopGapMs?: number;
  status?: number;
  error?: RequestError;
  jobId?: string;
  flow?: string;
  step?: string;
  shard?: string;
  /** 1 for the first try; each 429 retry is its own record with the next number. */
  attempt?: number;
  /**
   * The first request of an arrival (a flow iteration's first, first try): its `intendedAt` is
   * when the schedule (or the replayed trace) said the arrival comes.
   */
  arrival?: true;
  reqBytes: number;
  resBytes: number;
  /** Parsed JSON body, with long strings cut (see `trimBody`). */
  body?: unknown;
  /** The response body was not read on purpose (blast mode reads only non-2xx answers). */
  bodyUnread?: boolean;
  /** The request body when small enough to keep (for `curl` reproductions), trimmed likewise. */
  reqBody?: unknown;
  retryAfter?: string;
  /** The `Allow` header of a 405: which methods the route does serve. */
  allow?: string;
  req?: RequestFacts;
  /** Set for a server-sent-events answer; `body` then holds its first JSON event. */
  sse?: SseFacts;
  /** Streamed output this answer carried (an OpenAI stream, a `/stream` read with chunks). */
  output?: OutputFacts;
}

/** A webhook delivery our receiver took. */
export interface WebhookRecord {
  v: typeof RECORD_VERSION;
  type: 'webhook';
  seq: number;
  at: number;
  jobId?: string;
  path: string;
  /** Status our receiver answered with. */
  answered: number;
  bytes: number;
  body?: unknown;
  /**
   * The body named no job (a local server's `{output}`, or its stream's bare array of chunks): the
   * delivery is read as the job's whose webhook URL it came to, not as the contract's body
   * (`webhook.schema` says so once). Left out when the body names its job, and in a strict run.
   */
  adaptedShape?: 'no-id';
  /**
   * jobstorm's event loop had not run for this long when the receiver read the delivery: it may
   * have come in that much before `at`, and our answer went back that late (as `ExchangeRecord`).
   */
  loopGapMs?: number;
}

/** An arrival that could not start because `maxInFlight` was reached. */
export interface DroppedRecord {
  v: typeof RECORD_VERSION;
  type: 'dropped';
  seq: number;
  intendedAt: number;
  flow: string;
  shard?: string;
}

/**
 * The runner moved the emulator's clock (an `advance` step). The checks map record times onto the
 * target's time with these, so a ttl that expired in one jump is not mistaken for a lost job.
 */
export interface ClockRecord {
  v: typeof RECORD_VERSION;
  type: 'clock';
  seq: number;
  /** When the advance was answered. */
  at: number;
  advancedMs: number;
}

/**
 * The target gave no answer for a while although requests were waiting on it: a frozen or dead
 * target, told apart from a slow one. Emitted when the stall ends (an answer, or the run's end).
 */
export interface StallRecord {
  v: typeof RECORD_VERSION;
  type: 'stall';
  seq: number;
  /** When the target last had a request it did not answer (the stall's start). */
  at: number;
  durationMs: number;
  /** The most requests in flight at once while the target did not answer. */
  inFlight: number;
  /**
   * Requests that ended without an answer meanwhile, by error kind (jobstorm's own cuts left out):
   * `refused` says the target was down, not frozen. Absent when none did.
   */
  failed?: Record<string, number>;
}

/**
 * jobstorm itself was the bottleneck for a while (its event loop saturated, arrivals or callbacks
 * late): latencies measured then include its own queueing. Emitted when the stretch ends.
 */
export interface GeneratorRecord {
  v: typeof RECORD_VERSION;
  type: 'generator';
  seq: number;
  /** Start of the first limited second. */
  at: number;
  durationMs: number;
  /** Highest event-loop utilisation of a second in the stretch, 0..1. */
  busy: number;
  /** Highest per-second event-loop delay p99, ms. */
  loopDelayP99Ms: number;
  /** Highest per-second arrival lateness p99, ms. */
  latenessP99Ms: number;
  /** Mean CPU the process got over the stretch, in cores, when measured (low: starved of CPU). */
  cpuShare?: number;
}

/** First line of a records file: what the run was, and the wall-clock anchor of its times. */
export interface RunRecord {
  v: typeof RECORD_VERSION;
  type: 'run';
  runId: string;
  scenario: string;
  /** Target base URL without credentials. */
  target: string;
  /** Wall-clock time (epoch ms) at monotonic time 0. */
  startedAtMs: number;
  shard?: string;
  /** True when the run owns the endpoint (the embedded emulator), so counts can be compared. */
  ownsEndpoint: boolean;
  /**
   * No other client sends to this endpoint (`--exclusive-endpoint`; the embedded emulator), so a
   * 429 under the limit cannot be someone else's traffic. Defaults to `ownsEndpoint`.
   */
  exclusiveEndpoint?: boolean;
  /** `requestsPerWorker` of the dynamic rate limit, when known. */
  requestsPerWorker?: number;
  /** The target's clock moves only by `clock` records (the emulator's manual clock). */
  targetClock?: 'manual';
  /**
   * A strict run (`--strict`, `target.adapt: false`): an operation served to another method than
   * the contract's is reported and no longer sent, instead of sent the way the target takes it.
   */
  strict?: boolean;
  /**
   * How the run sent its key when not as `Bearer <key>`: the bare key, or none at all
   * (`--auth none`). A reproduction sends what the run sent.
   */
  auth?: 'bare' | 'none';
  /** What the run expects of the endpoint's scaling (the scenario's `scaling:`, the emulator's settings). */
  scaling?: ScalingExpectation;
  /** Checks the run does not run, each with why (`--skip-check`, `checks.skip`). */
  skipChecks?: SkippedCheck[];
  /** Deviations the run accepts (`--known`, `checks.known`): matching findings are known, not new. */
  known?: KnownDeviations;
}

export type JobstormRecord =
  ExchangeRecord | WebhookRecord | DroppedRecord | ClockRecord | StallRecord | GeneratorRecord | RunRecord;

/** Where a record sits in time, whatever its kind. */
export function recordTime(r: JobstormRecord): number {
  switch (r.type) {
    case 'exchange':
      return r.endAt;
    case 'webhook':
      return r.at;
    case 'dropped':
      return r.intendedAt;
    case 'clock':
      return r.at;
    case 'stall':
    case 'generator':
      return r.at + r.durationMs;
    case 'run':
      return 0;
  }
}

/** Something that consumes records one at a time (checker, metrics, file writer). */
export interface RecordSink {
  add(record: JobstormRecord): void;
}

/**
 * When the request went onto a connection: the earliest the service can have read it. Checks that
 * judge what the service did between reading a request and answering it start here, not at
 * `sentAt`, or a request that queued behind busy connections is charged for the wait.
 */
export function writtenAt(r: ExchangeRecord): number {
  return r.queuedMs === undefined ? r.sentAt : r.sentAt + r.queuedMs;
}

/**
 * The earliest the answer can have come in: `endAt`, unless jobstorm's loop was held up before it
 * read it. Checks that charge the service for how long it took to answer end here.
 */
export function earliestEndAt(r: ExchangeRecord): number {
  return r.loopGapMs === undefined ? r.endAt : Math.max(writtenAt(r), r.endAt - r.loopGapMs);
}
