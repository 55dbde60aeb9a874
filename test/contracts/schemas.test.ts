import { describe, expect, it } from 'vitest';
import {
  CancelResponseSchema,
  ErrorBodySchema,
  HealthResponseSchema,
  JobViewSchema,
  LIMITS,
  PurgeResponseSchema,
  RetryResponseSchema,
  RunResponseSchema,
  RunsyncResponseSchema,
  StatusResponseSchema,
  StreamResponseSchema,
  SubmissionBodySchema,
  WebhookBodySchema,
} from '../../contracts/queue/index.js';
import {
  EndpointCreateInputSchema,
  EndpointSchema,
  ManagementErrorSchema,
} from '../../contracts/management/index.js';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, v: unknown) =>
  schema.safeParse(v).success;

describe('submission body (SPEC "Job submission body")', () => {
  const full = {
    input: { prompt: 'hello' },
    webhook: 'https://example.test/hook',
    policy: { executionTimeout: 600000, lowPriority: false, ttl: 86400000 },
    s3Config: { accessId: 'AK', accessSecret: 'SK', bucketName: 'b', endpointUrl: 'https://s3.example.test' },
  };

  it('accepts the minimal and the full body', () => {
    expect(ok(SubmissionBodySchema, { input: {} })).toBe(true);
    expect(ok(SubmissionBodySchema, full)).toBe(true);
  });

  it.each([
    ['input missing', { webhook: 'https://x.test' }],
    ['input not an object', { input: 'text' }],
    ['input an array', { input: [1, 2] }],
    ['webhook not a URL', { input: {}, webhook: 'not a url' }],
    ['lowPriority not boolean', { input: {}, policy: { lowPriority: 'yes' } }],
    ['ttl a string', { input: {}, policy: { ttl: '10000' } }],
    ['executionTimeout fractional', { input: {}, policy: { executionTimeout: 5000.5 } }],
    [
      's3Config missing bucketName',
      { input: {}, s3Config: { accessId: 'a', accessSecret: 'b', endpointUrl: 'https://s3.test' } },
    ],
    ['unknown top-level field (requests we build never send them)', { input: {}, extra: 1 }],
    ['unknown policy field', { input: {}, policy: { priority: 1 } }],
  ])('rejects %s', (_name, body) => {
    expect(ok(SubmissionBodySchema, body)).toBe(false);
  });

  const bounds: [string, { min: number; max: number }][] = [
    ['executionTimeout', LIMITS.executionTimeout],
    ['ttl', LIMITS.ttl],
  ];
  it.each(bounds)('policy.%s accepts exactly its bounds and rejects one unit outside', (field, range) => {
    const body = (v: number) => ({ input: {}, policy: { [field]: v } });
    expect(ok(SubmissionBodySchema, body(range.min))).toBe(true);
    expect(ok(SubmissionBodySchema, body(range.max))).toBe(true);
    expect(ok(SubmissionBodySchema, body(range.min - 1))).toBe(false);
    expect(ok(SubmissionBodySchema, body(range.max + 1))).toBe(false);
  });

  it('encodes the spec bounds: executionTimeout 5 s..7 d, ttl 10 s..7 d, defaults 10 min and 24 h', () => {
    expect(LIMITS.executionTimeout).toEqual({ min: 5000, max: 604_800_000, default: 600_000 });
    expect(LIMITS.ttl).toEqual({ min: 10_000, max: 604_800_000, default: 86_400_000 });
    expect(LIMITS.wait).toEqual({ min: 1000, max: 300_000, default: 90_000 });
  });
});

describe('job responses (SPEC and real-service.md shapes)', () => {
  it('accepts /run as the clients see it and rejects mutations', () => {
    expect(ok(RunResponseSchema, { id: 'abc-123-u1', status: 'IN_QUEUE' })).toBe(true);
    expect(ok(RunResponseSchema, { id: 'abc', status: 'IN_QUEUE', extra: true })).toBe(true);
    expect(ok(RunResponseSchema, { id: 42, status: 'IN_QUEUE' })).toBe(false);
    expect(ok(RunResponseSchema, { status: 'IN_QUEUE' })).toBe(false);
    expect(ok(RunResponseSchema, { id: 'abc', status: 'COMPLETED' })).toBe(false);
  });

  const runsync = {
    delayTime: 824,
    executionTime: 3391,
    id: 'sync-79164ff4',
    output: { text: 'hi' },
    status: 'COMPLETED',
  };
  it('accepts /runsync COMPLETED and an unfinished one after the wait', () => {
    expect(ok(RunsyncResponseSchema, runsync)).toBe(true);
    expect(ok(RunsyncResponseSchema, { id: 'sync-1', status: 'IN_PROGRESS' })).toBe(true);
    expect(ok(RunsyncResponseSchema, { id: 'sync-1', status: 'IN_QUEUE' })).toBe(true);
  });

  it.each([
    ['delayTime as a string', { ...runsync, delayTime: '824' }],
    ['negative executionTime', { ...runsync, executionTime: -1 }],
    ['unknown status', { ...runsync, status: 'RUNNING_NOW' }],
    ['COMPLETED without delayTime', { id: 'x', status: 'COMPLETED', executionTime: 1 }],
    ['COMPLETED without executionTime', { id: 'x', status: 'COMPLETED', delayTime: 1 }],
    ['missing id', { status: 'IN_QUEUE' }],
  ])('rejects a status body with %s', (_n, body) => {
    expect(ok(StatusResponseSchema, body)).toBe(false);
  });

  it('FAILED carries error as a string (real-service.md)', () => {
    expect(
      ok(JobViewSchema, { id: 'j', status: 'FAILED', error: 'boom', delayTime: 1, executionTime: 2 }),
    ).toBe(true);
    expect(
      ok(JobViewSchema, { id: 'j', status: 'FAILED', error: JSON.stringify({ error_type: 'ValueError' }) }),
    ).toBe(true);
    expect(ok(JobViewSchema, { id: 'j', status: 'FAILED' })).toBe(false);
    expect(ok(JobViewSchema, { id: 'j', status: 'FAILED', error: { message: 'boom' } })).toBe(false);
  });

  it('accepts the extra fields real /status carries', () => {
    expect(
      ok(StatusResponseSchema, { id: 'j', status: 'IN_PROGRESS', retries: 0, workerId: 'w1', delayTime: 10 }),
    ).toBe(true);
  });

  it('cancel, retry, purge', () => {
    expect(ok(CancelResponseSchema, { id: 'j', status: 'CANCELLED' })).toBe(true);
    expect(ok(CancelResponseSchema, { id: 'j', status: 'CANCELLED', executionTime: 1, delayTime: 2 })).toBe(
      true,
    );
    expect(ok(CancelResponseSchema, { id: 'j', status: 'STOPPED' })).toBe(false);
    expect(ok(RetryResponseSchema, { id: 'j', status: 'IN_QUEUE' })).toBe(true);
    expect(ok(RetryResponseSchema, { id: 'j', status: 'COMPLETED' })).toBe(false);
    expect(ok(PurgeResponseSchema, { removed: 3, status: 'completed' })).toBe(true);
    expect(ok(PurgeResponseSchema, { removed: -1, status: 'completed' })).toBe(false);
    expect(ok(PurgeResponseSchema, { removed: '3', status: 'completed' })).toBe(false);
    expect(ok(PurgeResponseSchema, { removed: 3, status: 'COMPLETED' })).toBe(false);
  });
});

describe('stream (both shapes seen in the world)', () => {
  const specChunk = {
    metrics: {
      avg_gen_throughput: 0,
      avg_prompt_throughput: 0,
      cpu_kv_cache_usage: 0,
      gpu_kv_cache_usage: 0.01,
      input_tokens: 0,
      output_tokens: 1,
      pending: 0,
      running: 1,
      scenario: 'stream',
      stream_index: 1,
      swapped: 0,
    },
    output: { input_tokens: 0, output_tokens: 1, text: [' How'] },
  };
  it('accepts the spec bare array and the clients envelope', () => {
    expect(ok(StreamResponseSchema, [specChunk, specChunk])).toBe(true);
    expect(ok(StreamResponseSchema, [])).toBe(true);
    expect(ok(StreamResponseSchema, { status: 'IN_PROGRESS', stream: [{ output: 'a' }] })).toBe(true);
    expect(ok(StreamResponseSchema, { status: 'COMPLETED', stream: [], id: 'j', delayTime: 3 })).toBe(true);
  });
  it('rejects mutations', () => {
    expect(ok(StreamResponseSchema, { status: 'IN_PROGRESS' })).toBe(false);
    expect(ok(StreamResponseSchema, { status: 'DONE', stream: [] })).toBe(false);
    expect(ok(StreamResponseSchema, [{ metrics: {} }])).toBe(false);
    expect(ok(StreamResponseSchema, { status: 'IN_PROGRESS', stream: 'text' })).toBe(false);
  });
});

describe('health', () => {
  const health = {
    jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 2, retried: 0 },
    workers: { idle: 1, running: 0 },
  };
  it('accepts the spec body and the extra counters the js-sdk declares', () => {
    expect(ok(HealthResponseSchema, health)).toBe(true);
    expect(
      ok(HealthResponseSchema, {
        ...health,
        workers: { ...health.workers, initializing: 1, ready: 2, throttled: 0 },
      }),
    ).toBe(true);
  });
  it.each([
    ['negative counter', { ...health, jobs: { ...health.jobs, inQueue: -1 } }],
    ['missing retried', { ...health, jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 2 } }],
    ['string counter', { ...health, workers: { idle: '1', running: 0 } }],
    ['no workers', { jobs: health.jobs }],
  ])('rejects %s', (_n, body) => {
    expect(ok(HealthResponseSchema, body)).toBe(false);
  });
});

describe('errors and webhooks', () => {
  it('error bodies say what went wrong', () => {
    expect(ok(ErrorBodySchema, { error: 'wait must be 1000..300000' })).toBe(true);
    expect(ok(ErrorBodySchema, { message: 'Unauthorized' })).toBe(true);
    expect(ok(ErrorBodySchema, {})).toBe(false);
    expect(ok(ErrorBodySchema, 'Unauthorized')).toBe(false);
  });
  it('webhook body is the status body plus input and webhook (runpod-python#409)', () => {
    const body = {
      id: 'j',
      status: 'COMPLETED',
      delayTime: 1,
      executionTime: 2,
      output: { a: 1 },
      input: { a: 1 },
      webhook: 'http://127.0.0.1/h',
    };
    expect(ok(WebhookBodySchema, body)).toBe(true);
    expect(ok(WebhookBodySchema, { ...body, status: 'DONE' })).toBe(false);
    expect(ok(WebhookBodySchema, { ...body, delayTime: undefined })).toBe(false);
  });
});

describe('management (REST v1 document shapes)', () => {
  it('CreateEndpoint input requires templateId and keeps the document bounds', () => {
    expect(ok(EndpointCreateInputSchema, { templateId: 't1' })).toBe(true);
    expect(
      ok(EndpointCreateInputSchema, {
        name: 'e',
        templateId: 't1',
        gpuTypeIds: ['NVIDIA A40'],
        workersMin: 0,
        workersMax: 3,
        idleTimeout: 5,
      }),
    ).toBe(true);
    expect(ok(EndpointCreateInputSchema, { name: 'e' })).toBe(false);
    expect(ok(EndpointCreateInputSchema, { templateId: 't1', idleTimeout: 0 })).toBe(false);
    expect(ok(EndpointCreateInputSchema, { templateId: 't1', idleTimeout: 3600 })).toBe(true);
    expect(ok(EndpointCreateInputSchema, { templateId: 't1', idleTimeout: 3601 })).toBe(false);
    expect(ok(EndpointCreateInputSchema, { templateId: 't1', workersMin: -1 })).toBe(false);
    expect(ok(EndpointCreateInputSchema, { templateId: 't1', name: 'x'.repeat(192) })).toBe(false);
  });
  it('Endpoint and error responses', () => {
    expect(
      ok(EndpointSchema, {
        id: 'jpnw0v75y3qoql',
        name: 'my endpoint',
        workersMax: 3,
        createdAt: '2024-07-12T19:14:40.144Z',
      }),
    ).toBe(true);
    expect(ok(EndpointSchema, { name: 'no id' })).toBe(false);
    expect(ok(EndpointSchema, { id: 'x', workersMax: '3' })).toBe(false);
    expect(ok(ManagementErrorSchema, { message: 'invalid input' })).toBe(true);
    expect(ok(ManagementErrorSchema, { error: 'x' })).toBe(false);
  });
});
