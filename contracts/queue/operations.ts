import type { z } from 'zod';
import type { QueueOperation } from '../../src/core/operation.js';
import { LIMITS, type IntRange } from './limits.js';
import {
  CancelResponseSchema,
  ErrorBodySchema,
  HealthResponseSchema,
  JobViewSchema,
  PurgeResponseSchema,
  RetryResponseSchema,
  RunResponseSchema,
  RunsyncResponseSchema,
  StatusResponseSchema,
  StreamResponseSchema,
  SubmissionBodySchema,
} from './schemas.js';
import {
  ChatRequestSchema,
  OpenAiErrorSchema,
  OpenAiResponseSchema,
  RequestsListSchema,
} from './openai-schemas.js';

export interface QueryParam {
  name: string;
  range: IntRange;
  cite: string;
}

export interface OperationContract {
  name: QueueOperation;
  method: 'GET' | 'POST';
  /** Relative to `{serverless_url}/v2/<endpoint_id>`; `:id` is the job id. */
  path: string;
  summary: string;
  /** Body size band, for the operations that take a body. */
  bodyLimit?: { surelyAccepted: number; surelyRejected: number };
  body?: z.ZodType;
  query: QueryParam[];
  /** Every status code the operation may answer, with the body schema for each. */
  responses: Record<number, z.ZodType>;
  cite: string;
}

/*
 * Codes every operation may answer: SPEC "Errors" (400 malformed, 401 auth, 404 unknown endpoint,
 * 429 rate limit, 500 endpoint or worker failure).
 */
const common = {
  400: ErrorBodySchema,
  401: ErrorBodySchema,
  404: ErrorBodySchema,
  429: ErrorBodySchema,
  500: ErrorBodySchema,
};

const submission = {
  ...common,
  // An oversize body may be refused as 413 or 400 (SPEC "Limits" gives no code).
  413: ErrorBodySchema,
};

export const QUEUE_OPERATION_CONTRACTS: Record<QueueOperation, OperationContract> = {
  runsync: {
    name: 'runsync',
    method: 'POST',
    path: '/runsync',
    summary: 'Submit a synchronous job and wait for the complete result',
    bodyLimit: LIMITS.runsyncPayload,
    body: SubmissionBodySchema,
    query: [{ name: 'wait', range: LIMITS.wait, cite: 'SPEC "POST /runsync"' }],
    responses: { 200: RunsyncResponseSchema, ...submission },
    cite: 'SPEC "POST /runsync"',
  },
  run: {
    name: 'run',
    method: 'POST',
    path: '/run',
    summary: 'Submit an asynchronous job',
    bodyLimit: LIMITS.runPayload,
    body: SubmissionBodySchema,
    query: [],
    responses: { 200: RunResponseSchema, ...submission },
    cite: 'SPEC "POST /run"',
  },
  status: {
    name: 'status',
    method: 'GET',
    path: '/status/:id',
    summary: 'State, execution statistics and result of a job',
    query: [{ name: 'ttl', range: LIMITS.statusTtl, cite: 'SPEC "GET /status/<job_id>"' }],
    responses: { 200: StatusResponseSchema, ...common },
    cite: 'SPEC "GET /status/<job_id>"',
  },
  'status-sync': {
    name: 'status-sync',
    method: 'GET',
    path: '/status-sync/:id',
    summary: 'Wait like /runsync for a job that /runsync returned unfinished (official clients)',
    query: [{ name: 'wait', range: LIMITS.wait, cite: 'real-service.md "/runsync" (js-sdk)' }],
    responses: { 200: JobViewSchema, ...common },
    cite: 'real-service.md "/runsync"',
  },
  stream: {
    name: 'stream',
    method: 'GET',
    path: '/stream/:id',
    summary: 'Incremental results',
    query: [],
    responses: { 200: StreamResponseSchema, ...common },
    cite: 'SPEC "GET /stream/<job_id>"',
  },
  cancel: {
    name: 'cancel',
    method: 'POST',
    path: '/cancel/:id',
    summary: 'Stop a running job or remove a queued one',
    query: [],
    responses: { 200: CancelResponseSchema, ...common },
    cite: 'SPEC "POST /cancel/<job_id>"',
  },
  retry: {
    name: 'retry',
    method: 'POST',
    path: '/retry/:id',
    summary: 'Requeue a FAILED or TIMED_OUT job',
    query: [],
    responses: { 200: RetryResponseSchema, ...common },
    cite: 'SPEC "POST /retry/<job_id>"',
  },
  'purge-queue': {
    name: 'purge-queue',
    method: 'POST',
    path: '/purge-queue',
    summary: 'Remove all pending jobs',
    query: [],
    responses: { 200: PurgeResponseSchema, ...common },
    cite: 'SPEC "POST /purge-queue"',
  },
  health: {
    name: 'health',
    method: 'GET',
    path: '/health',
    summary: 'Endpoint worker and job statistics',
    query: [],
    responses: { 200: HealthResponseSchema, ...common },
    cite: 'SPEC "GET /health"',
  },
  openai: {
    name: 'openai',
    method: 'POST',
    // The `/openai/*` row of SPEC "Limits"; `:path` is `chat/completions`, `completions` or `models`
    // (GET, as OpenAI serves it; the limits table names POST only, so GET /models is not limited).
    path: '/openai/v1/:path',
    summary:
      'OpenAI-compatible API (chat completions, completions, models); `stream: true` answers server-sent events',
    body: ChatRequestSchema,
    query: [],
    responses: {
      200: OpenAiResponseSchema,
      400: OpenAiErrorSchema,
      401: OpenAiErrorSchema,
      404: OpenAiErrorSchema,
      413: OpenAiErrorSchema,
      429: OpenAiErrorSchema,
      500: OpenAiErrorSchema,
    },
    cite: 'SPEC "Limits" (/openai/*)',
  },
  requests: {
    name: 'requests',
    method: 'GET',
    path: '/requests',
    summary: "The endpoint's most recent requests (jobstorm's shape: the spec shows none)",
    query: [],
    responses: { 200: RequestsListSchema, ...common },
    cite: 'SPEC "Limits" (/requests)',
  },
};

/** Fills a path template: `/status/:id` → `/status/abc` (`/openai/v1/:path` → chat completions). */
export function operationPath(op: QueueOperation, jobId?: string): string {
  if (op === 'openai') return '/openai/v1/chat/completions';
  const template = QUEUE_OPERATION_CONTRACTS[op].path;
  return jobId === undefined ? template : template.replace(':id', encodeURIComponent(jobId));
}
