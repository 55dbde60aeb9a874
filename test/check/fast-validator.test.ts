import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MANAGEMENT_OPERATION_CONTRACTS } from '../../contracts/management/operations.js';
import { QUEUE_OPERATION_CONTRACTS } from '../../contracts/queue/operations.js';
import {
  ErrorBodySchema,
  JobViewSchema,
  SubmissionBodySchema,
  WebhookBodySchema,
} from '../../contracts/queue/schemas.js';
import { fastValidator } from '../../src/check/fast-validator.js';
import { mulberry32 } from '../../src/schedule/prng.js';

/**
 * Every schema the checks validate answers with, and the submission body (a strict object). Most
 * error codes share one schema object: each distinct schema is tried once, under its first name.
 */
const schemas: [string, z.ZodType][] = [
  ...new Map(
    [
      ...Object.values(QUEUE_OPERATION_CONTRACTS).flatMap((c) =>
        Object.entries(c.responses).map(([status, s]): [string, z.ZodType] => [`${c.name} ${status}`, s]),
      ),
      ...Object.values(MANAGEMENT_OPERATION_CONTRACTS).flatMap((c) =>
        Object.entries(c.responses).map(([status, s]): [string, z.ZodType] => [`${c.name} ${status}`, s]),
      ),
      ['webhook', WebhookBodySchema] as [string, z.ZodType],
      ['submission', SubmissionBodySchema] as [string, z.ZodType],
    ]
      .reverse()
      .map(([name, s]) => [s, name] as const),
  ),
]
  .map(([s, name]): [string, z.ZodType] => [name, s])
  .reverse();

const id = 'b97f3c9c-e9f3-4623-8923-b25875afd415-u1';
/** Bodies as the service answers them, valid for at least one schema each. */
const valid: unknown[] = [
  { id, status: 'IN_QUEUE' },
  { id, status: 'IN_PROGRESS', delayTime: 3, workerId: 'w-1' },
  {
    id,
    status: 'COMPLETED',
    delayTime: 0,
    executionTime: 8,
    output: { sleep_ms: 1 },
    workerId: 'emu-worker-4',
  },
  { id, status: 'FAILED', delayTime: 1, executionTime: 2, error: 'boom' },
  { id, status: 'CANCELLED' },
  { id, status: 'TIMED_OUT', delayTime: 1, executionTime: 600000, retries: 1 },
  { removed: 4, status: 'completed' },
  {
    jobs: { completed: 1, failed: 0, inProgress: 2, inQueue: 3, retried: 0 },
    workers: { idle: 1, running: 2, initializing: 0, throttled: 0, unhealthy: 0 },
  },
  {
    status: 'COMPLETED',
    stream: [{ output: { chunk: 1 } }, { output: 'x', metrics: { stream_index: 1 } }],
    id,
    delayTime: 1,
    executionTime: 2,
  },
  [{ output: { index: 0 } }, { output: 'tail', metrics: { stream_index: 1 } }],
  { error: 'not found' },
  {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  },
  { object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'me' }] },
  { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } },
  { requests: [{ id, status: 'COMPLETED', createdAt: 1, startedAt: 2, finishedAt: 3 }] },
  { message: 'Unauthorized' },
  {
    id,
    status: 'COMPLETED',
    delayTime: 0,
    executionTime: 1,
    output: 1,
    input: { a: 1 },
    webhook: 'http://127.0.0.1/h',
  },
  {
    input: { prompt: 'hi' },
    webhook: 'http://127.0.0.1:9/h',
    policy: { executionTimeout: 1000, ttl: 20000 },
  },
  { id: 'pod-1', name: 'p', desiredStatus: 'RUNNING' },
];

const pool: unknown[] = [
  null,
  undefined,
  -1,
  0,
  1,
  1.5,
  2 ** 60,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'x',
  'IN_QUEUE',
  'COMPLETED',
  'completed',
  true,
  false,
  [],
  {},
  [1],
  { a: 1 },
  { output: 1 },
];

/** Seeded, so that a failure names a case that can be replayed. */
const rng = mulberry32;

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

/** One change somewhere in the value: a key dropped, added or replaced, an element changed, or the whole value swapped. */
function mutate(value: unknown, r: () => number): unknown {
  if (Array.isArray(value)) {
    const items = value as unknown[];
    if (items.length === 0 || r() < 0.2) return r() < 0.5 ? [...items, pick(r, pool)] : pick(r, pool);
    const i = Math.floor(r() * items.length);
    return items.map((v, j) => (j === i ? mutate(v, r) : v));
  }
  if (typeof value !== 'object' || value === null || r() < 0.1) return pick(r, pool);
  const obj = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(obj);
  const roll = r();
  if (roll < 0.25 && keys.length) {
    const drop = pick(r, keys);
    return Object.fromEntries(Object.entries(obj).filter(([k]) => k !== drop));
  }
  if (roll < 0.4)
    obj[
      pick(r, [
        'extra',
        'status',
        'id',
        'delayTime',
        'executionTime',
        'error',
        'output',
        'stream',
        'removed',
        'jobs',
        'workers',
        'webhook',
        '__proto__',
        'constructor',
      ])
    ] = pick(r, pool);
  else if (keys.length) {
    const k = pick(r, keys);
    obj[k] = mutate(obj[k], r);
  }
  return obj;
}

describe('fast validator', () => {
  it('says yes only to what zod accepts, on every contract schema (differential, 10,000 seeded cases per schema)', () => {
    const r = rng(20261122);
    let fastYes = 0;
    let zodYes = 0;
    for (const [name, schema] of schemas) {
      const fast = fastValidator(schema);
      if (!fast) continue;
      for (let n = 0; n < 10_000; n++) {
        let v: unknown = pick(r, valid);
        const rounds = Math.floor(r() * 3);
        for (let k = 0; k < rounds; k++) v = mutate(v, r);
        const yes = fast(v);
        const ok = schema.safeParse(v).success;
        if (ok) zodYes++;
        if (yes) {
          fastYes++;
          expect(ok, `${name}: fast said yes to ${JSON.stringify(v)}`).toBe(true);
        }
      }
    }
    // The fast path has to carry the load, not just stay out of the way.
    expect(fastYes).toBeGreaterThan(zodYes * 0.95);
  });

  it('agrees with zod on the other node kinds it knows (plain numbers, nullables, unions, records, strict objects, lengths)', () => {
    const synthetic: z.ZodType[] = [
      z.number(),
      z.number().gt(0).lt(10),
      z.number().int().min(-3).max(3),
      z.string().max(2),
      z.string().min(2),
      z.union([z.string(), z.number(), z.null()]),
      z.literal([1, 'a', true]),
      z.enum(['a', 'b']),
      z.array(z.number()).min(1).max(2),
      z.record(z.string(), z.number()),
      z.strictObject({ a: z.number().optional(), b: z.string().nullable() }),
      z.looseObject({ a: z.boolean(), n: z.null(), any: z.any() }),
      z.object({ a: z.union([z.number(), z.array(z.string())]) }),
    ];
    const r = rng(7);
    const values: unknown[] = [
      ...pool,
      'ab',
      'abc',
      '😀😀',
      '😀',
      -3,
      3,
      4,
      10,
      9.5,
      ['x'],
      [1, 2, 3],
      { a: 1, b: null },
      { a: undefined, b: 'x' },
      { b: 'x', c: 1 },
      { a: true, n: null },
      { a: false, n: null, any: 1, more: 2 },
      { x: 1, y: 2 },
      { a: ['s'] },
      { a: 2 },
      { a: [1] },
    ];
    let yes = 0;
    for (const schema of synthetic) {
      const fast = fastValidator(schema);
      expect(fast, schema.def.type).toBeDefined();
      for (let n = 0; n < 5_000; n++) {
        let v: unknown = pick(r, values);
        if (r() < 0.5) v = mutate(v, r);
        const ok = schema.safeParse(v).success;
        if (fast?.(v) === true) {
          yes++;
          expect(ok, `${JSON.stringify(schema.def)}: fast said yes to ${JSON.stringify(v)}`).toBe(true);
        } else if (ok) {
          // Only lengths near the code-point edge may ask zod; everything else valid is a yes.
          expect(
            typeof v === 'string' || Array.isArray(v),
            `${JSON.stringify(schema.def)}: fast said no to ${JSON.stringify(v)}`,
          ).toBe(true);
        }
      }
    }
    expect(yes).toBeGreaterThan(1000);
  });

  it('answers yes at once for every body the emulator sends on the hot path', () => {
    for (const [op, body] of [
      ['run', valid[0]],
      ['status', valid[2]],
      ['status', valid[3]],
      ['cancel', valid[4]],
      ['purge-queue', valid[6]],
      ['health', valid[7]],
      ['stream', valid[8]],
      ['stream', valid[9]],
    ] as const) {
      const schema = QUEUE_OPERATION_CONTRACTS[op].responses[200];
      expect(schema && fastValidator(schema)?.(body), `${op}: ${JSON.stringify(body)}`).toBe(true);
    }
  });

  it('runs refinements and checks through zod: a COMPLETED job without delayTime, a negative count, an empty id are not waved through', () => {
    const jobView = fastValidator(JobViewSchema);
    expect(jobView?.({ id, status: 'COMPLETED', executionTime: 1 })).toBe(false);
    expect(jobView?.({ id, status: 'FAILED', delayTime: 1, executionTime: 1 })).toBe(false);
    expect(jobView?.({ id: '', status: 'IN_QUEUE' })).toBe(false);
    expect(jobView?.({ id, status: 'IN_PROGRESS', delayTime: 1.5 })).toBe(false);
    expect(
      fastValidator(QUEUE_OPERATION_CONTRACTS['purge-queue'].responses[200] as z.ZodType)?.({
        removed: -1,
        status: 'completed',
      }),
    ).toBe(false);
    expect(fastValidator(ErrorBodySchema)?.({ other: 1 })).toBe(false);
    expect(
      fastValidator(z.strictObject({ input: z.record(z.string(), z.unknown()) }))?.({
        input: {},
        surprise: 1,
      }),
    ).toBe(false);
  });

  it('leaves schemas with parts it does not know to zod', () => {
    expect(fastValidator(z.string().transform((s) => s.length))).toBeUndefined();
    expect(fastValidator(z.object({ a: z.number().default(1) }))).toBeUndefined();
    expect(fastValidator(z.string().trim().min(1))).toBeUndefined();
    expect(fastValidator(z.object({ a: z.string() }).refine((o) => o.a !== 'x'))).toBeUndefined();
    expect(
      fastValidator(
        z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]),
      ),
    ).toBeUndefined();
    // Known kinds still compile, refinements included.
    expect(
      fastValidator(
        z
          .looseObject({ a: z.string().nullable(), b: z.array(z.number().int()).min(1) })
          .refine((o) => o.b.length < 3),
      )?.({ a: null, b: [1, 2] }),
    ).toBe(true);
  });
});
