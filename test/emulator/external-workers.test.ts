import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, workerEnvironment, type EmulatorHandle } from '../../src/emulator/index.js';
import { ProtocolWorker, sleep, type Handler } from '../worker/protocol-worker.js';
import { call, expectStatus, status, submit, until, webhookReceiver, type Receiver } from './helpers.js';

/*
 * The worker protocol (reference/worker-protocol.md) against a test worker that speaks it: every
 * route, and what /status, /stream, /health and the webhook show for each case.
 */

const HOLD_MS = 1500;
let h: EmulatorHandle;
let env: Record<string, string>;
let hooks: Receiver;
const workers: ProtocolWorker[] = [];

async function setUp(extra: Record<string, unknown> = {}): Promise<void> {
  h = await startEmulator({
    externalWorkers: true,
    workerHoldMs: HOLD_MS,
    workerPingIntervalMs: 1000,
    workerDeadAfterMs: 3000,
    ...extra,
  });
  env = workerEnvironment(h.url, h.apiKey, 1000);
  // Real time: a real webhook receiver on a socket; its times are not judged.
  hooks = await webhookReceiver(() => Date.now());
}

function worker(id: string, handler: Handler, concurrency = 1): ProtocolWorker {
  const w = new ProtocolWorker(env, id, handler, concurrency).start();
  workers.push(w);
  return w;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await h.close();
  await hooks.close();
});

async function statusBody(id: string): Promise<Record<string, unknown>> {
  const r = await status(h, id);
  expectStatus(r, 200);
  return r.body as Record<string, unknown>;
}

async function health(): Promise<{ jobs: Record<string, number>; workers: Record<string, number> }> {
  const r = await call(h, 'GET', `${h.url}/health`);
  expectStatus(r, 200);
  return r.body as { jobs: Record<string, number>; workers: Record<string, number> };
}

async function final(id: string, ms = 10_000): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await until(
    async () => {
      body = await statusBody(id);
      return ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(String(body.status));
    },
    `job ${id} final`,
    ms,
  );
  return body;
}

function hookFor(id: string): Record<string, unknown> | undefined {
  return hooks.hits.map((x) => x.body as Record<string, unknown>).find((b) => b.id === id);
}

describe('worker protocol: a real worker takes the jobs', () => {
  it('plain result: IN_QUEUE → IN_PROGRESS → COMPLETED with the posted output; webhook and /health agree', async () => {
    await setUp();
    const id = await submit(h, { n: 1 }, { webhook: hooks.url });
    expect((await statusBody(id)).status).toBe('IN_QUEUE');
    expect((await health()).jobs.inQueue).toBe(1);
    worker('w-plain', (input) => Promise.resolve({ echo: input, text: 'ünïcode' }));
    const body = await final(id);
    expect(body).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { n: 1 }, text: 'ünïcode' },
      workerId: 'w-plain',
    });
    expect(typeof body.delayTime).toBe('number');
    expect(typeof body.executionTime).toBe('number');
    await until(() => hookFor(id) !== undefined, 'webhook');
    expect(hookFor(id)).toMatchObject({ id, status: 'COMPLETED', output: { echo: { n: 1 } } });
    const hl = await health();
    expect(hl.jobs).toMatchObject({ completed: 1, inQueue: 0, inProgress: 0 });
    expect(hl.workers).toMatchObject({ idle: 1, running: 0 });
  });

  it('handler error: FAILED with the error kept as a string; webhook says FAILED', async () => {
    await setUp();
    worker('w-err', () => Promise.reject(new Error('boom')));
    const id = await submit(h, { n: 2 }, { webhook: hooks.url });
    const body = await final(id);
    expect(body.status).toBe('FAILED');
    expect(typeof body.error).toBe('string');
    expect(JSON.parse(String(body.error))).toMatchObject({ error_message: 'boom' });
    expect(body.output).toBeUndefined();
    await until(() => hookFor(id) !== undefined, 'webhook');
    expect(hookFor(id)).toMatchObject({ status: 'FAILED', error: body.error });
    expect((await health()).jobs.failed).toBe(1);
  });

  it('a non-string error is kept as its JSON text', async () => {
    await setUp();
    worker('w-err2', () => Promise.resolve({ error: { code: 7 } }));
    const id = await submit(h, {});
    expect(await final(id)).toMatchObject({ status: 'FAILED', error: '{"code":7}' });
  });

  it('progress updates show in /status while IN_PROGRESS, and /health counts the worker running', async () => {
    await setUp();
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    worker('w-prog', async (_input, ctx) => {
      await ctx.progress({ step: 1 });
      await ctx.progress({ step: 2 });
      await gate;
      return 'done';
    });
    const id = await submit(h, {}, { webhook: hooks.url });
    await until(
      async () => JSON.stringify((await statusBody(id)).output) === '{"step":2}',
      'second progress update',
    );
    expect(await statusBody(id)).toMatchObject({
      status: 'IN_PROGRESS',
      output: { step: 2 },
      workerId: 'w-prog',
    });
    expect((await health()).workers).toMatchObject({ running: 1, idle: 0 });
    expect(hooks.hits).toHaveLength(0);
    release();
    expect(await final(id)).toMatchObject({ status: 'COMPLETED', output: 'done' });
  });

  it('a generator: each stream post is one /stream chunk; the final post carries them all', async () => {
    await setUp();
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    worker('w-gen', async (_input, ctx) => {
      await ctx.stream({ token: 'a' });
      await ctx.stream({ token: 'b' });
      await gate;
      await ctx.stream({ token: 'c' });
      return [{ token: 'a' }, { token: 'b' }, { token: 'c' }];
    });
    const id = await submit(h, { prompt: 'x' });
    await until(async () => {
      const s = await call(h, 'GET', `${h.url}/stream/${id}`);
      return (s.body as { stream: unknown[] }).stream.length > 0;
    }, 'first chunks');
    // The two chunks may arrive across two reads; together they are a, b, then c after the gate.
    release();
    const body = await final(id);
    expect(body.output).toEqual([{ token: 'a' }, { token: 'b' }, { token: 'c' }]);
    const rest = await call(h, 'GET', `${h.url}/stream/${id}`);
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    const stats = (snap.body as { externalWorkers: { workers: { streamChunks: number }[] } }).externalWorkers
      .workers[0];
    expect(stats?.streamChunks).toBe(3);
    expect(rest.body).toMatchObject({ status: 'COMPLETED' });
  });

  it('every /stream chunk is delivered once and in order', async () => {
    await setUp();
    worker('w-gen2', async (_input, ctx) => {
      for (const t of ['a', 'b', 'c', 'd']) await ctx.stream(t);
      return [];
    });
    const id = await submit(h, {});
    await final(id);
    const s = await call(h, 'GET', `${h.url}/stream/${id}`);
    expect(s.body).toMatchObject({
      id,
      status: 'COMPLETED',
      stream: [{ output: 'a' }, { output: 'b' }, { output: 'c' }, { output: 'd' }],
    });
    const again = await call(h, 'GET', `${h.url}/stream/${id}`);
    expect((again.body as { stream: unknown[] }).stream).toEqual([]);
  });

  it('batch take at concurrency 3: one take-batch gets three jobs, /health shows 3 running', async () => {
    await setUp();
    const ids = [await submit(h, { i: 0 }), await submit(h, { i: 1 }), await submit(h, { i: 2 })];
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const w = worker(
      'w-batch',
      async (input) => {
        await gate;
        return input;
      },
      3,
    );
    await until(async () => (await health()).jobs.inProgress === 3, 'three in progress');
    expect(w.trace.batchTakes[0]).toEqual({ batchSize: 3, got: 3 });
    expect((await health()).workers).toMatchObject({ running: 1 });
    release();
    for (const [i, id] of ids.entries())
      expect(await final(id)).toMatchObject({ status: 'COMPLETED', output: { i } });
  });

  it('a take with nothing queued is held (long-poll), then answered 204', async () => {
    await setUp();
    // Real time: the take's long-poll hold is a real socket held open on real time.
    const t0 = Date.now();
    const r = await call(
      h,
      'GET',
      `${env.RUNPOD_WEBHOOK_GET_JOB?.replace('$ID', 'w-idle') ?? ''}&job_in_progress=0`,
      { auth: h.apiKey },
    );
    expect(r.status).toBe(204);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(HOLD_MS - 50);
  });

  it('a held take is answered as soon as a job is queued', async () => {
    await setUp();
    const take = call(h, 'GET', `${h.url}/job-take/w-wait?&job_in_progress=0`, { auth: h.apiKey });
    // Real time: lets the held take reach the emulator over its real socket.
    await sleep(200);
    const id = await submit(h, { hello: 'there' });
    const r = await take;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, input: { hello: 'there' } });
    expect((await statusBody(id)).status).toBe('IN_PROGRESS');
  });

  it('closing the emulator answers every held take and stop poll at once, so workers can exit', async () => {
    await setUp({ workerHoldMs: 60_000 });
    const held = ['w-1', 'w-2', 'w-3'].flatMap((w) => [
      call(h, 'GET', `${h.url}/job-take/${w}?&job_in_progress=0`, { auth: h.apiKey }),
      call(h, 'GET', `${h.url}/job-stop/${w}?`, { auth: h.apiKey }),
    ]);
    await until(async () => (await health()).workers.idle === 3, 'three idle workers');
    // Real time: the take's long-poll hold is a real socket held open on real time.
    const t0 = Date.now();
    await h.close();
    const answers = await Promise.all(held);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204, 204, 204]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('cancel reaches the worker through the stop channel; a result after it is ignored and counted', async () => {
    await setUp();
    const w = worker(
      'w-cancel',
      (_input, ctx) =>
        new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    );
    const id = await submit(h, {}, { webhook: hooks.url });
    await until(async () => (await statusBody(id)).status === 'IN_PROGRESS', 'taken');
    expectStatus(await call(h, 'POST', `${h.url}/cancel/${id}`), 200);
    await until(() => w.trace.stopped.includes(id), 'stop delivered');
    expect((await statusBody(id)).status).toBe('CANCELLED');
    const late = await call(h, 'POST', `${h.url}/job-done/w-cancel/${id}?&isStream=false`, {
      raw: '{"output":"late"}',
      auth: h.apiKey,
    });
    expect(late.status).toBe(409);
    expect(await statusBody(id)).toMatchObject({ status: 'CANCELLED' });
    expect((await statusBody(id)).output).toBeUndefined();
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(snap.body).toMatchObject({ externalWorkers: { lateResults: 1 } });
    await until(() => hookFor(id) !== undefined, 'webhook');
    expect(hookFor(id)).toMatchObject({ status: 'CANCELLED' });
    expect((await health()).workers).toMatchObject({ running: 0, idle: 1 });
  });

  it('a stop that reached the worker before its take did is told again while its heartbeat lists the job', async () => {
    await setUp();
    const id = await submit(h, {});
    const take = await call(h, 'GET', `${h.url}/job-take/w-race?&job_in_progress=0`, { auth: h.apiKey });
    expect(take.body).toMatchObject({ id });
    const stop = call(h, 'GET', `${h.url}/job-stop/w-race?`, { auth: h.apiKey });
    expectStatus(await call(h, 'POST', `${h.url}/cancel/${id}`), 200);
    expect((await stop).body).toEqual({ jobsToStop: [id] });
    // The worker had not started the job yet and ignored the id (worker-protocol C); its next
    // heartbeat lists the job as running: it is told again, on the poll held then or the next one.
    const again = call(h, 'GET', `${h.url}/job-stop/w-race?`, { auth: h.apiKey });
    await call(h, 'GET', `${h.url}/ping/w-race?&job_id=${id}%2Cnever-taken&runpod_version=test`, {
      auth: h.apiKey,
    });
    expect((await again).body).toEqual({ jobsToStop: [id] });
    await call(h, 'GET', `${h.url}/ping/w-race?&job_id=${id}`, { auth: h.apiKey });
    expect((await call(h, 'GET', `${h.url}/job-stop/w-race?`, { auth: h.apiKey })).body).toEqual({
      jobsToStop: [id],
    });
    // A heartbeat without it, or listing only jobs never stopped, tells nothing: the poll is held, then 204.
    await call(h, 'GET', `${h.url}/ping/w-race?&job_id=never-taken`, { auth: h.apiKey });
    expect((await call(h, 'GET', `${h.url}/job-stop/w-race?`, { auth: h.apiKey })).status).toBe(204);
    expect((await statusBody(id)).status).toBe('CANCELLED');
  });

  it('executionTimeout: TIMED_OUT, and the worker is told to stop', async () => {
    await setUp();
    const w = worker(
      'w-slow',
      (_input, ctx) =>
        new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    );
    const id = await submit(h, {}, { policy: { executionTimeout: 5000 }, webhook: hooks.url });
    const body = await final(id, 15_000);
    expect(body.status).toBe('TIMED_OUT');
    expect(body.executionTime).toBeGreaterThanOrEqual(5000);
    await until(() => w.trace.stopped.includes(id), 'stop delivered');
    await until(() => hookFor(id) !== undefined, 'webhook');
    expect(hookFor(id)).toMatchObject({ status: 'TIMED_OUT' });
    expect((await health()).jobs).toMatchObject({ failed: 1, inProgress: 0 });
  }, 30_000);

  it('simulated and real workers share one queue', async () => {
    await setUp({ externalWorkers: false, workersMin: 0, workersMax: 1, coldStartMs: 60_000 });
    worker('w-shared', () => Promise.resolve('real'));
    const id = await submit(h, {});
    expect(await final(id)).toMatchObject({ status: 'COMPLETED', output: 'real', workerId: 'w-shared' });
  });
});

describe('worker protocol: hostile input gets a 4xx and changes no job', () => {
  it('bad JSON, unknown ids, results for jobs never taken, duplicates, another worker, bad batch_size', async () => {
    await setUp();
    const queued = await submit(h, { q: 1 });
    const post = (worker: string, job: string, raw: string) =>
      call(h, 'POST', `${h.url}/job-done/${worker}/${job}?&isStream=false`, {
        raw,
        auth: h.apiKey,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect((await post('w-x', queued, '{"output":')).status).toBe(400);
    expect((await post('w-x', 'no-such-job', '{"output":1}')).status).toBe(404);
    expect((await post('w-x', queued, '{"output":1}')).status).toBe(409);
    expect((await statusBody(queued)).status).toBe('IN_QUEUE');
    const take = await call(h, 'GET', `${h.url}/job-take/w-a?&job_in_progress=0`, { auth: h.apiKey });
    expect(take.body).toMatchObject({ id: queued });
    expect((await post('w-b', queued, '{"output":"not mine"}')).status).toBe(409);
    expect((await post('w-a', queued, '[1,2]')).status).toBe(400);
    expect((await post('w-a', queued, '{"status":"COMPLETED","output":1}')).status).toBe(400);
    expect((await post('w-a', queued, '{}')).status).toBe(400);
    expect(
      (
        await call(h, 'POST', `${h.url}/job-stream/w-b/${queued}?&isStream=false`, {
          raw: '{"output":1}',
          auth: h.apiKey,
        })
      ).status,
    ).toBe(409);
    expect(await statusBody(queued)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w-a' });
    expect((await statusBody(queued)).output).toBeUndefined();
    expect((await post('w-a', queued, '{"output":"mine"}')).status).toBe(200);
    expect((await post('w-a', queued, '{"output":"again"}')).status).toBe(409);
    expect(await statusBody(queued)).toMatchObject({ status: 'COMPLETED', output: 'mine' });
    expect((await health()).jobs).toMatchObject({ completed: 1, failed: 0 });
    expect(
      (await call(h, 'GET', `${h.url}/job-take-batch/w-a?&batch_size=0`, { auth: h.apiKey })).status,
    ).toBe(400);
    expect(
      (await call(h, 'GET', `${h.url}/job-take-batch/w-a?&batch_size=abc`, { auth: h.apiKey })).status,
    ).toBe(400);
    expect((await call(h, 'POST', `${h.url}/job-take/w-a?`, { auth: h.apiKey })).status).toBe(405);
    expect((await call(h, 'GET', `${h.url}/job-take/w-a?`, { auth: 'wrong' })).status).toBe(401);
    expect((await call(h, 'GET', `${h.url}/job-take/bad%20id?`, { auth: h.apiKey })).status).toBe(400);
    expect((await call(h, 'GET', `${h.url}/job-done/w-a?`, { auth: h.apiKey })).status).toBe(404);
  });
});
