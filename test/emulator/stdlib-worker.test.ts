import { describe, expect, it, type TestContext } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, workerEnvironment, type EmulatorHandle } from '../../src/emulator/index.js';
import { startPythonWorker, type PythonWorker } from '../worker/python-worker.js';
import { call, expectStatus, status, submit, until, webhookReceiver } from './helpers.js';

/*
 * The standard-library Python worker against the emulator: a separate process that speaks the
 * worker protocol, as a user's worker would. Each case asserts /status, /stream, /health and the
 * webhook. Each case has an emulator and a worker process of its own, so they run side by side;
 * the cases about a timeout or a dead worker run the emulator on a manual clock and move its time
 * themselves (the worker process stays real: what it does on the stop channel is the point).
 */

const DEAD_AFTER_MS = 3000;

interface Setup {
  h: EmulatorHandle;
  /** The emulator's clock when the case asked for `clock: 'manual'`. */
  clock: ManualClock | undefined;
  hooks: { url: string; hit: (id: string) => Promise<Record<string, unknown>> };
  python: (podId: string, concurrency?: number) => PythonWorker;
  body: (id: string) => Promise<Record<string, unknown>>;
  health: () => Promise<{ jobs: Record<string, number>; workers: Record<string, number> }>;
  final: (id: string, ms?: number) => Promise<Record<string, unknown>>;
}

async function setUp(ctx: TestContext, extra: Record<string, unknown> = {}): Promise<Setup> {
  const h = await startEmulator({
    externalWorkers: true,
    workerHoldMs: 2000,
    workerPingIntervalMs: 1000,
    workerDeadAfterMs: DEAD_AFTER_MS,
    ...extra,
  });
  const env = workerEnvironment(h.url, h.apiKey, 1000);
  // Real time: the worker is a real Python process on the system clock.
  const receiver = await webhookReceiver(() => Date.now());
  const procs: PythonWorker[] = [];
  // The case's own hook: side by side, a hook imported from vitest may land on another case.
  ctx.onTestFinished(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    await h.close();
    await receiver.close();
  });
  const body = async (id: string): Promise<Record<string, unknown>> => {
    const r = await status(h, id);
    expectStatus(r, 200);
    return r.body as Record<string, unknown>;
  };
  const find = (id: string): Record<string, unknown> | undefined =>
    receiver.hits.map((x) => x.body as Record<string, unknown>).find((b) => b.id === id);
  return {
    h,
    clock: h.clock instanceof ManualClock ? h.clock : undefined,
    hooks: {
      url: receiver.url,
      hit: async (id) => {
        await until(() => find(id) !== undefined, `webhook of ${id}`);
        return find(id) ?? {};
      },
    },
    python: (podId, concurrency = 1) => {
      const p = startPythonWorker(env, podId, { WORKER_CONCURRENCY: String(concurrency) });
      procs.push(p);
      return p;
    },
    body,
    health: async () =>
      (await call(h, 'GET', `${h.url}/health`)).body as {
        jobs: Record<string, number>;
        workers: Record<string, number>;
      },
    final: async (id, ms = 20_000) => {
      let b: Record<string, unknown> = {};
      await until(
        async () => {
          b = await body(id);
          return ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(String(b.status));
        },
        `job ${id} final`,
        ms,
      );
      return b;
    },
  };
}

/** The manual clock of a case set up with `clock: 'manual'`. */
function manual(t: Setup): ManualClock {
  if (t.clock === undefined) throw new Error('expected an emulator on a manual clock');
  return t.clock;
}

describe.concurrent('the standard-library Python worker', () => {
  it('plain result, handler error, progress updates and a generator', async (ctx) => {
    const { h, hooks, python, body, health, final } = await setUp(ctx);
    const w = python('py-1');
    const plain = await submit(h, { a: 1 }, { webhook: hooks.url });
    expect(await final(plain)).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { a: 1 } },
      workerId: 'py-1',
    });
    expect(await hooks.hit(plain)).toMatchObject({ status: 'COMPLETED', output: { echo: { a: 1 } } });

    const failing = await submit(h, { fail: 'kaput' }, { webhook: hooks.url });
    const failed = await final(failing);
    expect(failed.status).toBe('FAILED');
    expect(JSON.parse(String(failed.error))).toMatchObject({ error_message: 'kaput', worker_id: 'py-1' });
    expect(await hooks.hit(failing)).toMatchObject({ status: 'FAILED' });

    // Three updates half a second apart, then the result: a second to see it IN_PROGRESS.
    const slow = await submit(h, { progress: 3, sleep_ms: 1500 });
    await until(async () => (await body(slow)).output !== undefined, 'a progress update', 10_000);
    const during = await body(slow);
    expect(during).toMatchObject({ status: 'IN_PROGRESS', output: { of: 3 } });
    expect((await health()).workers).toMatchObject({ running: 1 });
    expect(await final(slow)).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { progress: 3, sleep_ms: 1500 } },
    });

    const gen = await submit(h, { stream: 3 });
    const done = await final(gen);
    expect(done.output).toEqual([0, 1, 2].map((n) => ({ chunk: n, text: `piece ${String(n)}` })));
    const s = await call(h, 'GET', `${h.url}/stream/${gen}`);
    expect(s.body).toMatchObject({
      status: 'COMPLETED',
      stream: [0, 1, 2].map((n) => ({ output: { chunk: n } })),
    });
    expect((await health()).jobs).toMatchObject({ completed: 3, failed: 1, inQueue: 0, inProgress: 0 });
    expect((await health()).workers).toMatchObject({ idle: 1, running: 0 });
    expect(w.output()).toContain('py-1 started');
  }, 60_000);

  it('batch take at concurrency 3 runs three jobs at once', async (ctx) => {
    const { h, python, health, final } = await setUp(ctx);
    const ids = await Promise.all([0, 1, 2].map((i) => submit(h, { i, sleep_ms: 1500 })));
    python('py-batch', 3);
    await until(async () => (await health()).jobs.inProgress === 3, 'three running at once', 15_000);
    expect((await health()).workers).toMatchObject({ running: 1 });
    for (const id of ids)
      expect(await final(id)).toMatchObject({ status: 'COMPLETED', workerId: 'py-batch' });
  }, 60_000);

  it('cancel and executionTimeout reach the worker on the stop channel; it posts no result', async (ctx) => {
    // On a manual clock: the 5 s (the contract's least executionTimeout) pass in one step. Holds
    // longer than that keep the worker's stop poll open meanwhile, so it is not taken for dead.
    const t = await setUp(ctx, { clock: 'manual', workerHoldMs: 60_000 });
    const { h, hooks, python, body, final } = t;
    const clock = manual(t);
    const w = python('py-stop');
    const cancelled = await submit(h, { sleep_ms: 60_000 }, { webhook: hooks.url });
    await until(async () => (await body(cancelled)).status === 'IN_PROGRESS', 'taken', 15_000);
    expectStatus(await call(h, 'POST', `${h.url}/cancel/${cancelled}`), 200);
    await until(() => w.output().includes(`stopped ${cancelled}`), 'the worker stopped the job', 10_000);
    expect(await body(cancelled)).toMatchObject({ status: 'CANCELLED' });
    expect(await hooks.hit(cancelled)).toMatchObject({ status: 'CANCELLED' });

    const slow = await submit(
      h,
      { sleep_ms: 60_000 },
      { policy: { executionTimeout: 5000 }, webhook: hooks.url },
    );
    await until(async () => (await body(slow)).status === 'IN_PROGRESS', 'taken', 15_000);
    clock.advance(4999);
    expect((await body(slow)).status).toBe('IN_PROGRESS');
    clock.advance(1);
    expect(await final(slow)).toMatchObject({ status: 'TIMED_OUT' });
    await until(() => w.output().includes(`stopped ${slow}`), 'the worker stopped the timed-out job', 10_000);
    expect(await hooks.hit(slow)).toMatchObject({ status: 'TIMED_OUT' });
    // The worker is free again: the next job completes.
    const next = await submit(h, { b: 2 });
    expect(await final(next)).toMatchObject({ status: 'COMPLETED' });
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(snap.body).toMatchObject({
      externalWorkers: { lateResults: 0, workers: [{ id: 'py-stop', stopsSent: 2, completed: 1 }] },
    });
  }, 60_000);

  it('a worker killed mid-job: its heartbeats stop, it is dead after the bound, its job FAILED', async (ctx) => {
    // On a manual clock: silence is measured on it, so "after the bound" is exact, not a guess
    // about how long a loaded machine takes.
    const t = await setUp(ctx, { clock: 'manual' });
    const { h, hooks, python, body, health, final } = t;
    const clock = manual(t);
    const w = python('py-kill');
    const id = await submit(h, { sleep_ms: 60_000 }, { webhook: hooks.url });
    await until(async () => (await body(id)).status === 'IN_PROGRESS', 'taken', 15_000);
    expect((await health()).workers).toMatchObject({ running: 1 });
    w.child.kill('SIGKILL');
    await w.exited;
    // Its connections closed with it (the kernel closes them before the exit is reported); a round
    // trip lets the emulator read that before time moves.
    expect((await health()).workers).toMatchObject({ running: 1 });
    clock.advance(DEAD_AFTER_MS - 1);
    expect((await body(id)).status, 'dead before the bound').toBe('IN_PROGRESS');
    // The silence is checked at least once a second of the clock.
    clock.advance(1000);
    const b = await final(id);
    expect(b.status).toBe('FAILED');
    expect(String(b.error)).toContain('py-kill was lost');
    expect(await hooks.hit(id)).toMatchObject({ status: 'FAILED' });
    expect((await health()).workers).toMatchObject({ idle: 0, running: 0 });
    expect((await health()).jobs).toMatchObject({ failed: 1, inProgress: 0 });
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(snap.body).toMatchObject({
      externalWorkers: { workers: [{ id: 'py-kill', state: 'dead', lostJobs: 1 }] },
    });
  }, 60_000);
});
