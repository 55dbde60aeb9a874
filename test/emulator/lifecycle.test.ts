import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import {
  CancelResponseSchema,
  HealthResponseSchema,
  JobViewSchema,
  PurgeResponseSchema,
  RetryResponseSchema,
  RunResponseSchema,
  RunsyncResponseSchema,
  StatusResponseSchema,
  StreamEnvelopeSchema,
} from '../../contracts/queue/schemas.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus, manualEmulator, status, submit, until, valid } from './helpers.js';

let open: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});

async function emulator(options: Parameters<typeof manualEmulator>[0] = {}) {
  const e = await manualEmulator(options);
  open.push(e.h);
  return e;
}

async function view(h: EmulatorHandle, id: string) {
  const r = await status(h, id);
  expectStatus(r, 200);
  return valid(StatusResponseSchema, r.body);
}

async function health(h: EmulatorHandle) {
  const r = await call(h, 'GET', `${h.url}/health`);
  expectStatus(r, 200);
  return valid(HealthResponseSchema, r.body);
}

describe('job lifecycle on a manual clock', () => {
  it('walks IN_QUEUE → IN_PROGRESS → COMPLETED with delayTime = queue wait and executionTime = run time', async () => {
    const { h, clock } = await emulator({ workersMin: 0, workersMax: 1, coldStartMs: 1000 });
    const r = await call(h, 'POST', `${h.url}/run`, { body: { input: { sleep_ms: 2000, prompt: 'hi' } } });
    expectStatus(r, 200);
    const { id } = valid(RunResponseSchema, r.body);
    expect(r.body).toEqual({ id, status: 'IN_QUEUE' });
    expect((await view(h, id)).status).toBe('IN_QUEUE');
    expect((await health(h)).workers.initializing).toBe(1);
    clock.advance(1000);
    const running = await view(h, id);
    expect(running.status).toBe('IN_PROGRESS');
    expect(running.delayTime).toBe(1000);
    clock.advance(1999);
    expect((await view(h, id)).status).toBe('IN_PROGRESS');
    clock.advance(1);
    const done = await view(h, id);
    expect(done).toMatchObject({
      id,
      status: 'COMPLETED',
      delayTime: 1000,
      executionTime: 2000,
      output: { sleep_ms: 2000, prompt: 'hi' },
    });
    expect(Number.isInteger(done.delayTime) && Number.isInteger(done.executionTime)).toBe(true);
    const hl = await health(h);
    expect(hl.jobs).toEqual({ completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 });
  });

  it('the default profile finishes in a few milliseconds and echoes the input', async () => {
    const { h, clock } = await emulator();
    const id = await submit(h, { a: [1, 2] });
    clock.advance(10);
    const v = await view(h, id);
    expect(v.status).toBe('COMPLETED');
    expect(v.output).toEqual({ a: [1, 2] });
    expect(v.executionTime).toBeLessThanOrEqual(5);
  });

  it('fail ends the job FAILED with the message as a string error; output_bytes sizes the output', async () => {
    const { h, clock } = await emulator({ workersMax: 3 });
    const failed = await submit(h, { fail: 'boom', sleep_ms: 10 });
    const big = await submit(h, { output_bytes: 1234 });
    const bad = await submit(h, { sleep_ms: 'soon' });
    clock.advance(50);
    expect(await view(h, failed)).toMatchObject({ status: 'FAILED', error: 'boom' });
    const b = await view(h, big);
    expect(b.status).toBe('COMPLETED');
    expect(typeof b.output === 'string' && b.output.length).toBe(1234);
    const e = await view(h, bad);
    expect(e.status).toBe('FAILED');
    expect(e.error).toMatch(/input\.sleep_ms/);
    expect((await health(h)).jobs).toMatchObject({ completed: 1, failed: 2 });
  });

  it('executionTimeout ends a long job TIMED_OUT at the timeout', async () => {
    const { h, clock } = await emulator();
    const id = await submit(h, { sleep_ms: 60_000 }, { policy: { executionTimeout: 5000 } });
    clock.advance(4999);
    expect((await view(h, id)).status).toBe('IN_PROGRESS');
    clock.advance(1);
    expect(await view(h, id)).toMatchObject({ status: 'TIMED_OUT', executionTime: 5000 });
  });

  it('ttl expiring mid-run deletes the job at once: 404, and its worker is freed', async () => {
    const { h, clock } = await emulator({ workersMax: 1 });
    const id = await submit(h, { sleep_ms: 60_000 }, { policy: { ttl: 10_000 } });
    const next = await submit(h, { sleep_ms: 100 });
    clock.advance(9_999);
    expect((await view(h, id)).status).toBe('IN_PROGRESS');
    expect((await view(h, next)).status).toBe('IN_QUEUE');
    clock.advance(1);
    const gone = await status(h, id);
    expectStatus(gone, 404);
    expect(gone.body).toMatchObject({ error: expect.stringContaining(id) as string });
    expect((await view(h, next)).status).toBe('IN_PROGRESS');
    expect((await health(h)).jobs.inProgress).toBe(1);
  });

  it('retention: a /run result lives 30 minutes, a /runsync one 1 minute, then 404 and no retry', async () => {
    const { h, clock } = await emulator({ workersMax: 2 });
    const run = await submit(h, { fail: 'x', sleep_ms: 0 });
    const sync = call(h, 'POST', `${h.url}/runsync`, { body: { input: { sleep_ms: 0 } } });
    await until(
      async () => (await health(h)).jobs.inQueue + (await health(h)).jobs.inProgress === 2,
      'both jobs in',
    );
    clock.advance(0);
    const syncReply = await sync;
    const syncId = valid(RunsyncResponseSchema, syncReply.body).id;
    expect(syncId.startsWith('sync-')).toBe(true);
    clock.advance(LIMITS.retentionRunsync - 1);
    expectStatus(await status(h, syncId), 200);
    clock.advance(1);
    expectStatus(await status(h, syncId), 404);
    clock.advance(LIMITS.retentionRun - LIMITS.retentionRunsync - 1);
    expectStatus(await status(h, run), 200);
    clock.advance(1);
    expectStatus(await status(h, run), 404);
    expectStatus(await call(h, 'POST', `${h.url}/retry/${run}`), 404);
  });

  it('/status?ttl= gives the job that many more milliseconds', async () => {
    const { h, clock } = await emulator();
    const id = await submit(h, {});
    clock.advance(10);
    expectStatus(await call(h, 'GET', `${h.url}/status/${id}?ttl=6000`), 200);
    clock.advance(5999);
    expectStatus(await status(h, id), 200);
    clock.advance(1);
    expectStatus(await status(h, id), 404);
    // The parameter is checked before the job is looked up.
    expectStatus(await call(h, 'GET', `${h.url}/status/${id}?ttl=abc`), 400);
  });

  it('/runsync returns the job with its current status when the wait elapses; /status-sync then waits for the rest', async () => {
    const { h, clock } = await emulator();
    const pending = call(h, 'POST', `${h.url}/runsync?wait=1000`, { body: { input: { sleep_ms: 5000 } } });
    await until(async () => (await health(h)).jobs.inProgress === 1, 'job running');
    clock.advance(1000);
    const first = await pending;
    expectStatus(first, 200);
    const job = valid(RunsyncResponseSchema, first.body);
    expect(job.status).toBe('IN_PROGRESS');
    const again = call(h, 'GET', `${h.url}/status-sync/${job.id}?wait=10000`);
    await until(
      async () => (await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`)).text.includes('"waiting":1'),
      'status-sync waiting',
    );
    clock.advance(4000);
    const second = await again;
    expectStatus(second, 200);
    expect(valid(JobViewSchema, second.body)).toMatchObject({
      id: job.id,
      status: 'COMPLETED',
      executionTime: 5000,
    });
  });

  it('/runsync that finishes within the wait answers COMPLETED with timings and output', async () => {
    const { h, clock } = await emulator();
    const pending = call(h, 'POST', `${h.url}/runsync`, { body: { input: { sleep_ms: 300, q: 1 } } });
    await until(async () => (await health(h)).jobs.inProgress === 1, 'job running');
    clock.advance(300);
    const r = await pending;
    expectStatus(r, 200);
    expect(valid(RunsyncResponseSchema, r.body)).toMatchObject({
      status: 'COMPLETED',
      delayTime: 0,
      executionTime: 300,
      output: { sleep_ms: 300, q: 1 },
    });
  });

  it('cancel stops a running job, removes a queued one, and answers a final job with its own status', async () => {
    const { h, clock } = await emulator({ workersMax: 1 });
    const running = await submit(h, { sleep_ms: 10_000 });
    const queued = await submit(h, { sleep_ms: 10 });
    const third = await submit(h, { sleep_ms: 10 });
    const c1 = await call(h, 'POST', `${h.url}/cancel/${queued}`);
    expectStatus(c1, 200);
    expect(valid(CancelResponseSchema, c1.body)).toMatchObject({ id: queued, status: 'CANCELLED' });
    expect((await view(h, queued)).status).toBe('CANCELLED');
    const c2 = await call(h, 'POST', `${h.url}/cancel/${running}`);
    expect(valid(CancelResponseSchema, c2.body).status).toBe('CANCELLED');
    expect((await view(h, third)).status).toBe('IN_PROGRESS');
    clock.advance(20_000);
    expect((await view(h, running)).status).toBe('CANCELLED');
    expect((await view(h, queued)).status).toBe('CANCELLED');
    expect((await view(h, third)).status).toBe('COMPLETED');
    const c3 = await call(h, 'POST', `${h.url}/cancel/${third}`);
    expectStatus(c3, 200);
    expect(c3.body).toMatchObject({ id: third, status: 'COMPLETED' });
    expectStatus(await call(h, 'POST', `${h.url}/cancel/nope`), 404);
  });

  it('retry requeues FAILED and TIMED_OUT jobs only: same id, output and error cleared, counted in jobs.retried', async () => {
    const { h, clock } = await emulator({ workersMax: 3 });
    const failed = await submit(h, { fail: 'boom' });
    const timedOut = await submit(h, { sleep_ms: 9000 }, { policy: { executionTimeout: 5000 } });
    const ok = await submit(h, {});
    clock.advance(5000);
    const r1 = await call(h, 'POST', `${h.url}/retry/${failed}`);
    expectStatus(r1, 200);
    expect(valid(RetryResponseSchema, r1.body)).toEqual({ id: failed, status: 'IN_QUEUE' });
    const v = await view(h, failed);
    expect(v.error).toBeUndefined();
    expect(v.output).toBeUndefined();
    expectStatus(await call(h, 'POST', `${h.url}/retry/${timedOut}`), 200);
    const refused = await call(h, 'POST', `${h.url}/retry/${ok}`);
    expectStatus(refused, 400);
    expect(refused.body).toMatchObject({ error: expect.stringMatching(/COMPLETED/) as string });
    expect((await health(h)).jobs.retried).toBe(2);
    expectStatus(await call(h, 'POST', `${h.url}/retry/${failed}`), 400);
    clock.advance(10);
    expect(await view(h, failed)).toMatchObject({ status: 'FAILED', error: 'boom', retries: 1 });
  });

  it('purge-queue cancels queued jobs only and reports how many', async () => {
    const { h, clock } = await emulator({ workersMax: 1 });
    const running = await submit(h, { sleep_ms: 1000 });
    const queued = [
      await submit(h, {}),
      await submit(h, {}),
      await submit(h, {}, { policy: { lowPriority: true } }),
    ];
    const r = await call(h, 'POST', `${h.url}/purge-queue`);
    expectStatus(r, 200);
    expect(valid(PurgeResponseSchema, r.body)).toEqual({ removed: 3, status: 'completed' });
    for (const id of queued) expect((await view(h, id)).status).toBe('CANCELLED');
    expect((await view(h, running)).status).toBe('IN_PROGRESS');
    clock.advance(1000);
    expect((await view(h, running)).status).toBe('COMPLETED');
    expect((await health(h)).jobs).toMatchObject({ inQueue: 0, inProgress: 0, completed: 1 });
  });

  it('stream returns only chunks not yet delivered, spread over sleep_ms, each at most 1 MB', async () => {
    const { h, clock } = await emulator();
    const id = await submit(h, { stream: 4, sleep_ms: 4000 });
    clock.advance(2000);
    const s1 = valid(StreamEnvelopeSchema, (await call(h, 'GET', `${h.url}/stream/${id}`)).body);
    expect(s1.status).toBe('IN_PROGRESS');
    expect(s1.stream.map((c) => c.output)).toEqual([
      { chunk: 0, text: 'chunk 0' },
      { chunk: 1, text: 'chunk 1' },
    ]);
    expect(valid(StreamEnvelopeSchema, (await call(h, 'GET', `${h.url}/stream/${id}`)).body).stream).toEqual(
      [],
    );
    clock.advance(2000);
    const s2 = valid(StreamEnvelopeSchema, (await call(h, 'GET', `${h.url}/stream/${id}`)).body);
    expect(s2.status).toBe('COMPLETED');
    expect(s2.stream).toHaveLength(2);
    const s3 = valid(StreamEnvelopeSchema, (await call(h, 'GET', `${h.url}/stream/${id}`)).body);
    expect(s3).toMatchObject({ status: 'COMPLETED', stream: [] });

    const big = await submit(h, { stream: 1, chunk_bytes: 2_500_000 });
    clock.advance(10);
    const s4 = valid(StreamEnvelopeSchema, (await call(h, 'GET', `${h.url}/stream/${big}`)).body);
    expect(s4.stream.length).toBe(3);
    for (const c of s4.stream)
      expect(Buffer.byteLength(JSON.stringify(c))).toBeLessThanOrEqual(LIMITS.streamChunk.surelyAccepted);
    expect(s4.stream.reduce((n, c) => n + (c.output as string).length, 0)).toBe(2_500_000);
  });

  it('workers scale up on queue depth with a cold start and idle down after idleTimeout; lowPriority jobs do not scale', async () => {
    const { h, clock } = await emulator({ workersMin: 0, workersMax: 3, coldStartMs: 500, idleTimeout: 2 });
    const low = await submit(h, { sleep_ms: 10 }, { policy: { lowPriority: true } });
    clock.advance(10_000);
    expect((await view(h, low)).status).toBe('IN_QUEUE');
    expect((await health(h)).workers).toMatchObject({ idle: 0, running: 0, initializing: 0 });
    for (let i = 0; i < 5; i++) await submit(h, { sleep_ms: 1000 });
    expect((await health(h)).workers.initializing).toBe(3);
    clock.advance(500);
    expect((await health(h)).workers).toMatchObject({ running: 3, initializing: 0 });
    expect((await health(h)).jobs.inQueue).toBe(3);
    clock.advance(3000);
    expect((await health(h)).jobs).toMatchObject({ completed: 6, inQueue: 0, inProgress: 0 });
    expect((await health(h)).workers.idle).toBe(3);
    clock.advance(2000);
    expect((await health(h)).workers).toMatchObject({ idle: 0, running: 0, initializing: 0 });
  });

  it('stream shape "array" serves the spec\'s bare array of chunks', async () => {
    const { h, clock } = await emulator({ streamShape: 'array' });
    const id = await submit(h, { stream: 2, sleep_ms: 10 });
    clock.advance(10);
    const r = await call(h, 'GET', `${h.url}/stream/${id}`);
    expect(r.body).toEqual([
      { output: { chunk: 0, text: 'chunk 0' } },
      { output: { chunk: 1, text: 'chunk 1' } },
    ]);
  });
});
