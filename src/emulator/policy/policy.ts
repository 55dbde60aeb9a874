import type { SizeBand } from '../../../contracts/queue/limits.js';
import type { QueueOperation } from '../../core/operation.js';
import type { JobStatus } from '../../core/job-status.js';
import type { SeededRandom } from '../../core/seeded-random.js';
import type { ParamResult } from '../http/params.js';
import type { Job } from '../job.js';
import type { LimiterMode } from '../rate-limiter.js';

/** How an Authorization header presented itself: the key as `Bearer`, the bare key, or anything else. */
export type Credential = 'bearer' | 'bare' | 'wrong';

/** The rate table's rows as the routes consult them. */
export type LimitRow = 'queue' | 'openai' | 'requests';

/** Which API an answer belongs to: the queue API under /v2 or the management API under /v1. */
export type AnswerApi = 'queue' | 'management';

/** How /runsync and /status-sync wait: answer at the job's end, and after how many times the wait. */
export interface SyncWait {
  readonly atEnd: boolean;
  readonly factor: number;
}

/** How a streamed /openai/* answer closes. */
export interface OpenAiStreamEnd {
  /** The final `data: [DONE]` event is sent. */
  readonly done: boolean;
  /** One more chunk event follows it. */
  readonly chunkAfter: boolean;
}

/** How a generated stream chunk of `bytes` is cut into the pieces /stream hands out. */
export interface ChunkCut {
  /** Pieces each chunk becomes. */
  readonly perChunk: (bytes: number) => number;
  /** Bytes one piece weighs against an answer's budget. */
  readonly pieceBytes: (bytes: number) => number;
  /** Piece `p` (of `per` per chunk) as the answer carries it. */
  readonly piece: (bytes: number, p: number, per: number) => unknown;
}

/** An OpenAI error's optional fields. */
export interface OpenAiErrorDetail {
  param?: string | null;
  code?: string | null;
}

/**
 * Every rule decision the emulator makes where the spec sets the rule. The faithful policy
 * (faithful-policy.ts) decides as contracts/ says; a fault (faults/) replaces one decision, or the
 * few it must, and asks the policy below it for the rest. Decisions are plain function fields, so a
 * policy is composed by spreading objects and no call depends on `this`.
 */
export interface EmulatorPolicy {
  // --- requests ---
  /** The message of a 500 to answer before doing anything, or undefined to serve the request. */
  readonly serverError: (rng: SeededRandom) => string | undefined;
  /** Whether the API under test (never the control plane) accepts this credential. */
  readonly accepts: (credential: Credential) => boolean;
  /** How the rate limiter treats a row (a constant per row: no allocation per request). */
  readonly limiterMode: (row: LimitRow) => LimiterMode;
  /** Headers of a 429 answer. */
  readonly retryAfterHeader: (seconds: string) => Record<string, string> | undefined;
  /** The status code actually sent for a `status` answer of this API. */
  readonly answerStatus: (status: number, api: AnswerApi) => number;
  /** Whether a queue operation is served at all. */
  readonly serves: (op: QueueOperation) => boolean;
  /** The method /stream is served by. */
  readonly streamMethod: () => 'GET' | 'POST';
  /** The answer to /status of a job that does not exist, or undefined for the 404. */
  readonly unknownJob: (jobId: string) => Record<string, unknown> | undefined;
  /** Largest body accepted in a size band. */
  readonly bodyLimit: (band: SizeBand) => number;
  /** The `wait` query parameter of /runsync and /status-sync. */
  readonly waitParam: (query: string) => ParamResult;
  /** A submission body as it goes to validation. */
  readonly submission: (body: unknown) => unknown;
  readonly syncWait: () => SyncWait;

  // --- answer bodies ---
  /** A job status in a /run, /stream, /cancel or /retry body. */
  readonly statusField: (status: JobStatus) => string | number;
  /** A count in a body (purge `removed`, health `jobs.completed`). */
  readonly countField: (n: number) => number | string;
  /** The bare-array form of a /stream answer. */
  readonly arrayStream: (chunks: { output: unknown }[]) => unknown;
  /** The entries of GET /requests. */
  readonly requestsList: (entries: Record<string, unknown>[]) => unknown;
  /** The `message` of a management error. */
  readonly messageField: (message: string, status: number) => string | number;
  /** The record a management create answers with. */
  readonly createdRecord: (record: Record<string, unknown>) => Record<string, unknown>;

  // --- job views ---
  /** delayTime and executionTime as a job body carries them. */
  readonly timingField: (ms: number) => number | string;
  /** A started job's delayTime as reported. */
  readonly delayTime: (job: Job) => number;
  /** The status one /status read shows. */
  readonly shownStatus: (job: Job) => JobStatus;
  readonly chunkCut: () => ChunkCut;
  /** Where a /stream answer's pieces begin, `from` being the first not delivered. */
  readonly streamStart: (job: Job, from: number, produced: number) => number;

  // --- job lifecycle ---
  /** A job was submitted to the queue `queue` (one per endpoint). */
  readonly submitted: (job: Job, queue: object) => void;
  /** Whether the service cancels the job itself when a worker would start it. */
  readonly cancelsAtStart: (job: Job) => boolean;
  /** How long a job runs, given what its handler asks. */
  readonly runDuration: (ms: number) => number;
  /** The executionTimeout enforced (ms), undefined when none is. */
  readonly executionLimit: (job: Job) => number | undefined;
  /** Whether POST /cancel stops a job that is not final. */
  readonly honoursCancel: (job: Job) => boolean;
  readonly retryable: (status: JobStatus) => boolean;
  /** Whether POST /purge-queue also cancels running jobs. */
  readonly purgesRunning: () => boolean;
  /** `removed` as POST /purge-queue reports it. */
  readonly purgeCount: (removed: number) => number;
  /** When a final job's result retention ends. */
  readonly retentionEnd: (job: Job) => number;
  /** A later deadline for a job whose deadline came (its ttl not enforced), or 0 to delete it. */
  readonly ttlExtension: (job: Job, now: number, retentionEnd: number) => number;

  // --- scaling ---
  /** Queued jobs that call for workers, of `normal` (not lowPriority) among `all` queued. */
  readonly scalingDemand: (normal: number, all: number) => number;
  /** The most workers the autoscaler starts, given the endpoint's workersMax. */
  readonly workerCap: (workersMax: number) => number;
  /** Whether a worker idle past idleTimeout stops (while more than workersMin remain). */
  readonly scalesDown: () => boolean;

  // --- health ---
  /** jobs.completed as counted. */
  readonly healthCompleted: (n: number) => number;
  /** jobs.completed as one GET /health read of the endpoint `endpoint` shows it. */
  readonly healthCompletedRead: (n: number, endpoint: object) => number;
  readonly healthInQueue: (n: number) => number;

  // --- webhooks ---
  readonly sendsWebhook: (job: Job) => boolean;
  /** The webhook body's job view; `policy` is the whole policy, for the job view's own decisions. */
  readonly webhookView: (job: Job, policy: EmulatorPolicy) => Record<string, unknown>;
  /** Attempts a delivery gets in all. */
  readonly webhookAttempts: () => number;
  readonly webhookRetrySpacing: () => number;
  /** When a delivered webhook is sent again, or undefined. */
  readonly webhookRepeatAfter: () => number | undefined;

  // --- OpenAI-compatible routes ---
  readonly openAiErrorBody: (status: number, message: string, detail: OpenAiErrorDetail) => unknown;
  /** The data of the `n`-th token's event (from 1), given its JSON. */
  readonly tokenEvent: (n: number, json: string) => string;
  readonly streamEnd: () => OpenAiStreamEnd;
}
