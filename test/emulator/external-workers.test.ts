import { describe, expect, it, type TestContext } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, workerEnvironment, type EmulatorHandle } from '../../src/emulator/index.js';
import { ProtocolWorker, type Handler } from '../worker/protocol-worker.js';
import {
  call,
  expectStatus,
  status,
  submit,
  until,
  webhookReceiver,
  type Receiver,
  type Reply,
} from './helpers.js';

/*
 * The worker protocol (reference/worker-protocol.md) against a test worker that speaks it: every
 * route, and what /status, /stream, /health and the webhook show for each case. Each case has an
 * emulator of its own, so they run side by side; the cases about a hold or a timeout run it on a
 * manual clock and move time themselves (issue 46).
 */

const HOLD_MS = 1500;

/** One case's emulator, webhook receiver and workers, and shortcuts that read them. */
interface Setup {
  h: EmulatorHandle;
  env: Record<string, string>;
  hooks: Receiver;
  /** The emulator's clock when the case asked for `clock: 'manual'`. */
  clock: ManualClock | undefined;
  worker: (id: string, handler: Handler, concurrency?: number) => ProtocolWorker;
  statusBody: (id: string) => Promise<Record<string, unknown>>;
  health: () => Promise<{ jobs: Record<string, number>; workers: Record<string, number> }>;
  final: (id: string, ms?: number) => Promise<Record<string, unknown>>;
  hookFor: (id: string) => Record<string, unknown> | undefined;
}

async function setUp(ctx: TestContext, extra: Record<string, unknown> = {}): Promise<Setup> {
  const h = await startEmulator({
    externalWorkers: true,
    workerHoldMs: HOLD_MS,
    workerPingIntervalMs: 1000,
    workerDeadAfterMs: 3000,
    ...extra,
  });
  const env = workerEnvironment(h.url, h.apiKey, 1000);
  // Real time: a real webhook receiver on a socket; its times are not judged.
  const hooks = await webhookReceiver(() => Date.now());
  const workers: ProtocolWorker[] = [];
  // The case's own hook: side by side, a hook imported from vitest may land on another case.
  ctx.onTestFinished(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await h.close();
    await hooks.close();
  });
  const statusBody = async (id: string): Promise<Record<string, unknown>> => {
    const r = await status(h, id);
    expectStatus(r, 200);
    return r.body as Record<string, unknown>;
  };
  return {
    h,
    env,
    hooks,
    clock: h.clock instanceof ManualClock ? h.clock : undefined,
    worker: (id, handler, concurrency = 1) => {
      const w = new ProtocolWorker(env, id, handler, concurrency).start();
      workers.push(w);
      return w;
    },
    statusBody,
    health: async () => {
      const r = await call(h, 'GET', `${h.url}/health`);
      expectStatus(r, 200);
      return r.body as { jobs: Record<string, number>; workers: Record<string, number> };
    },
    final: async (id, ms = 10_000) => {
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
    },
    hookFor: (id) => hooks.hits.map((x) => x.body as Record<string, unknown>).find((b) => b.id === id),
  };
}

/** The manual clock of a case set up with `clock: 'manual'`. */
function manual(t: Setup): ManualClock {
  if (t.clock === undefined) throw new Error('expected an emulator on a manual clock');
  return t.clock;
}

describe.concurrent('worker protocol: a real worker takes the jobs', () => {
  it('plain result: IN_QUEUE → IN_PROGRESS → COMPLETED with the posted output; webhook and /health agree', async (ctx) => {
    const { h, hooks, worker, statusBody, health, final, hookFor } = await setUp(ctx);
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

  it('handler error: FAILED with the error kept as a string; webhook says FAILED', async (ctx) => {
    const { h, hooks, worker, health, final, hookFor } = await setUp(ctx);
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

  it('a non-string error is kept as its JSON text', async (ctx) => {
    const { h, worker, final } = await setUp(ctx);
    worker('w-err2', () => Promise.resolve({ error: { code: 7 } }));
    const id = await submit(h, {});
    expect(await final(id)).toMatchObject({ status: 'FAILED', error: '{"code":7}' });
  });

  it('progress updates show in /status while IN_PROGRESS, and /health counts the worker running', async (ctx) => {
    const { h, hooks, worker, statusBody, health, final } = await setUp(ctx);
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

  it('a generator: each stream post is one /stream chunk; the final post carries them all', async (ctx) => {
    const { h, worker, final } = await setUp(ctx);
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

  it('every /stream chunk is delivered once and in order', async (ctx) => {
    const t = await setUp(ctx);
    const { h, worker, final } = t;
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

  it('batch take at concurrency 3: one take-batch gets three jobs, /health shows 3 running', async (ctx) => {
    const { h, worker, health, final } = await setUp(ctx);
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

  it('a take with nothing queued is held (long-poll) for the hold, then answered 204', async (ctx) => {
    const t = await setUp(ctx, { clock: 'manual' });
    const { h, env, health } = t;
    const clock = manual(t);
    let answer: Reply | undefined;
    const take = call(
      h,
      'GET',
      `${env.RUNPOD_WEBHOOK_GET_JOB?.replace('$ID', 'w-idle') ?? ''}&job_in_progress=0`,
      { auth: h.apiKey },
    ).then((r) => (answer = r));
    // The take has reached the emulator (its worker is counted), and the clock has not moved.
    await until(async () => (await health()).workers.idle === 1, 'the take held');
    clock.advance(HOLD_MS - 1);
    // A round trip after the advance: an answer sent at it would have come back by then.
    await health();
    expect(answer, 'answered before the hold ended').toBeUndefined();
    clock.advance(1);
    expect((await take).status).toBe(204);
  });

  it('a held take is answered as soon as a job is queued', async (ctx) => {
    const { h, statusBody, health } = await setUp(ctx);
    const take = call(h, 'GET', `${h.url}/job-take/w-wait?&job_in_progress=0`, { auth: h.apiKey });
    // The held take has reached the emulator: its worker is counted.
    await until(async () => (await health()).workers.idle === 1, 'the take held');
    const id = await submit(h, { hello: 'there' });
    const r = await take;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id, input: { hello: 'there' } });
    expect((await statusBody(id)).status).toBe('IN_PROGRESS');
  });

  it('closing the emulator answers every held take and stop poll at once, so workers can exit', async (ctx) => {
    // On a manual clock that never moves: no hold can end, so only the close can answer them.
    const t = await setUp(ctx, { clock: 'manual', workerHoldMs: 60_000 });
    const { h, health } = t;
    const clock = manual(t);
    const held = ['w-1', 'w-2', 'w-3'].flatMap((w) => [
      call(h, 'GET', `${h.url}/job-take/${w}?&job_in_progress=0`, { auth: h.apiKey }),
      call(h, 'GET', `${h.url}/job-stop/${w}?`, { auth: h.apiKey }),
    ]);
    await until(async () => (await health()).workers.idle === 3, 'three idle workers');
    const before = clock.now();
    await h.close();
    const answers = await Promise.all(held);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204, 204, 204]);
    expect(clock.now()).toBe(before);
  });

  it('cancel reaches the worker through the stop channel; a result after it is ignored and counted', async (ctx) => {
    const { h, hooks, worker, statusBody, health, hookFor } = await setUp(ctx);
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

  it('a stop that reached the worker before its take did is told again while its heartbeat lists the job', async (ctx) => {
    // On a manual clock: a poll is held until the test moves time, however slow the machine.
    const t = await setUp(ctx, { clock: 'manual' });
    const { h, statusBody } = t;
    const clock = manual(t);
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
    let last: Reply | undefined;
    const held = call(h, 'GET', `${h.url}/job-stop/w-race?`, { auth: h.apiKey }).then((r) => (last = r));
    expect((await statusBody(id)).status).toBe('CANCELLED');
    expect(last, 'a stop poll answered before its hold ended').toBeUndefined();
    // Moved as often as it takes the poll to arrive: only the hold's end can answer it.
    while (last === undefined) {
      clock.advance(HOLD_MS);
      await statusBody(id);
    }
    expect((await held).status).toBe(204);
  });

  it('executionTimeout: TIMED_OUT at the bound, and the worker is told to stop', async (ctx) => {
    // On a manual clock: the 5 s (the contract's least executionTimeout) pass in one step. Holds
    // longer than that keep the worker's stop poll open meanwhile, so it is not taken for dead.
    const t = await setUp(ctx, { clock: 'manual', workerHoldMs: 60_000 });
    const { h, hooks, worker, statusBody, health, final, hookFor } = t;
    const clock = manual(t);
    const w = worker(
      'w-slow',
      (_input, job) =>
        new Promise((_r, reject) => job.signal.addEventListener('abort', () => reject(new Error('stopped')))),
    );
    const id = await submit(h, {}, { policy: { executionTimeout: 5000 }, webhook: hooks.url });
    await until(async () => (await statusBody(id)).status === 'IN_PROGRESS', 'taken');
    clock.advance(4999);
    expect((await statusBody(id)).status).toBe('IN_PROGRESS');
    clock.advance(1);
    const body = await final(id);
    expect(body.status).toBe('TIMED_OUT');
    expect(body.executionTime).toBeGreaterThanOrEqual(5000);
    await until(() => w.trace.stopped.includes(id), 'stop delivered');
    await until(() => hookFor(id) !== undefined, 'webhook');
    expect(hookFor(id)).toMatchObject({ status: 'TIMED_OUT' });
    expect((await health()).jobs).toMatchObject({ failed: 1, inProgress: 0 });
  });

  it('simulated and real workers share one queue', async (ctx) => {
    const { h, worker, final } = await setUp(ctx, {
      externalWorkers: false,
      workersMin: 0,
      workersMax: 1,
      coldStartMs: 60_000,
    });
    worker('w-shared', () => Promise.resolve('real'));
    const id = await submit(h, {});
    expect(await final(id)).toMatchObject({ status: 'COMPLETED', output: 'real', workerId: 'w-shared' });
  });
});

describe.concurrent('worker protocol: hostile input gets a 4xx and changes no job', () => {
  it('bad JSON, unknown ids, results for jobs never taken, duplicates, another worker, bad batch_size', async (ctx) => {
    const { h, statusBody, health } = await setUp(ctx);
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
