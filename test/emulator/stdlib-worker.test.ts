import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, workerEnvironment, type EmulatorHandle } from '../../src/emulator/index.js';
import { startPythonWorker, type PythonWorker } from '../worker/python-worker.js';
import { call, expectStatus, status, submit, until, webhookReceiver, type Receiver } from './helpers.js';

/*
 * The standard-library Python worker against the emulator: a separate process that speaks the
 * worker protocol, as a user's worker would. Each case asserts /status, /stream, /health and the
 * webhook.
 */

let h: EmulatorHandle;
let env: Record<string, string>;
let hooks: Receiver;
const procs: PythonWorker[] = [];

async function setUp(): Promise<void> {
  h = await startEmulator({
    externalWorkers: true,
    workerHoldMs: 2000,
    workerPingIntervalMs: 1000,
    workerDeadAfterMs: 3000,
  });
  env = workerEnvironment(h.url, h.apiKey, 1000);
  // Real time: the worker is a real Python process on the system clock.
  hooks = await webhookReceiver(() => Date.now());
}

function python(podId: string, concurrency = 1): PythonWorker {
  const p = startPythonWorker(env, podId, { WORKER_CONCURRENCY: String(concurrency) });
  procs.push(p);
  return p;
}

afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
  await h.close();
  await hooks.close();
});

async function body(id: string): Promise<Record<string, unknown>> {
  const r = await status(h, id);
  expectStatus(r, 200);
  return r.body as Record<string, unknown>;
}

async function health(): Promise<{ jobs: Record<string, number>; workers: Record<string, number> }> {
  return (await call(h, 'GET', `${h.url}/health`)).body as {
    jobs: Record<string, number>;
    workers: Record<string, number>;
  };
}

async function final(id: string, ms = 20_000): Promise<Record<string, unknown>> {
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
}

async function hook(id: string): Promise<Record<string, unknown>> {
  const find = () => hooks.hits.map((x) => x.body as Record<string, unknown>).find((b) => b.id === id);
  await until(() => find() !== undefined, `webhook of ${id}`);
  return find() ?? {};
}

describe('the standard-library Python worker', () => {
  it('plain result, handler error, progress updates and a generator', async () => {
    await setUp();
    const w = python('py-1');
    const plain = await submit(h, { a: 1 }, { webhook: hooks.url });
    expect(await final(plain)).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { a: 1 } },
      workerId: 'py-1',
    });
    expect(await hook(plain)).toMatchObject({ status: 'COMPLETED', output: { echo: { a: 1 } } });

    const failing = await submit(h, { fail: 'kaput' }, { webhook: hooks.url });
    const failed = await final(failing);
    expect(failed.status).toBe('FAILED');
    expect(JSON.parse(String(failed.error))).toMatchObject({ error_message: 'kaput', worker_id: 'py-1' });
    expect(await hook(failing)).toMatchObject({ status: 'FAILED' });

    const slow = await submit(h, { progress: 3, sleep_ms: 3000 });
    await until(async () => (await body(slow)).output !== undefined, 'a progress update', 10_000);
    const during = await body(slow);
    expect(during).toMatchObject({ status: 'IN_PROGRESS', output: { of: 3 } });
    expect((await health()).workers).toMatchObject({ running: 1 });
    expect(await final(slow)).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { progress: 3, sleep_ms: 3000 } },
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

  it('batch take at concurrency 3 runs three jobs at once', async () => {
    await setUp();
    const ids = await Promise.all([0, 1, 2].map((i) => submit(h, { i, sleep_ms: 1500 })));
    python('py-batch', 3);
    await until(async () => (await health()).jobs.inProgress === 3, 'three running at once', 15_000);
    expect((await health()).workers).toMatchObject({ running: 1 });
    for (const id of ids)
      expect(await final(id)).toMatchObject({ status: 'COMPLETED', workerId: 'py-batch' });
  }, 60_000);

  it('cancel and executionTimeout reach the worker on the stop channel; it posts no result', async () => {
    await setUp();
    const w = python('py-stop');
    const cancelled = await submit(h, { sleep_ms: 60_000 }, { webhook: hooks.url });
    await until(async () => (await body(cancelled)).status === 'IN_PROGRESS', 'taken', 15_000);
    expectStatus(await call(h, 'POST', `${h.url}/cancel/${cancelled}`), 200);
    await until(() => w.output().includes(`stopped ${cancelled}`), 'the worker stopped the job', 10_000);
    expect(await body(cancelled)).toMatchObject({ status: 'CANCELLED' });
    expect(await hook(cancelled)).toMatchObject({ status: 'CANCELLED' });

    const slow = await submit(
      h,
      { sleep_ms: 60_000 },
      { policy: { executionTimeout: 5000 }, webhook: hooks.url },
    );
    expect(await final(slow, 20_000)).toMatchObject({ status: 'TIMED_OUT' });
    await until(() => w.output().includes(`stopped ${slow}`), 'the worker stopped the timed-out job', 10_000);
    expect(await hook(slow)).toMatchObject({ status: 'TIMED_OUT' });
    // The worker is free again: the next job completes.
    const next = await submit(h, { b: 2 });
    expect(await final(next)).toMatchObject({ status: 'COMPLETED' });
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(snap.body).toMatchObject({
      externalWorkers: { lateResults: 0, workers: [{ id: 'py-stop', stopsSent: 2, completed: 1 }] },
    });
  }, 60_000);

  it('a worker killed mid-job: its heartbeats stop, it is dead after the bound, its job FAILED', async () => {
    await setUp();
    const w = python('py-kill');
    const id = await submit(h, { sleep_ms: 60_000 }, { webhook: hooks.url });
    await until(async () => (await body(id)).status === 'IN_PROGRESS', 'taken', 15_000);
    expect((await health()).workers).toMatchObject({ running: 1 });
    // Real time: the worker is a real Python process killed on the system clock.
    const killedAt = Date.now();
    w.child.kill('SIGKILL');
    await w.exited;
    const b = await final(id, 15_000);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(2000);
    expect(b.status).toBe('FAILED');
    expect(String(b.error)).toContain('py-kill was lost');
    expect(await hook(id)).toMatchObject({ status: 'FAILED' });
    expect((await health()).workers).toMatchObject({ idle: 0, running: 0 });
    expect((await health()).jobs).toMatchObject({ failed: 1, inProgress: 0 });
    const snap = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(snap.body).toMatchObject({
      externalWorkers: { workers: [{ id: 'py-kill', state: 'dead', lostJobs: 1 }] },
    });
  }, 60_000);
});
