import { afterEach, describe, expect, it } from 'vitest';
import { HealthResponseSchema, StatusResponseSchema } from '../../contracts/queue/schemas.js';
import { ConfigError } from '../../src/core/config-error.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulatorInWorker, type EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus, submit, until, valid } from './helpers.js';

let open: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});

describe('startEmulatorInWorker', () => {
  it('serves the API from a worker thread; a manual clock is driven through the admin API and mirrored in the handle', async () => {
    const h = await startEmulatorInWorker({ clock: 'manual', coldStartMs: 0, apiKey: 'worker-key' });
    open.push(h);
    expect(h.apiKey).toBe('worker-key');
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/jobstorm$/);
    const id = await submit(h, { sleep_ms: 1000 });
    expect(valid(StatusResponseSchema, (await call(h, 'GET', `${h.url}/status/${id}`)).body).status).toBe(
      'IN_PROGRESS',
    );
    let fired = 0;
    h.clock.schedule(1000, () => fired++);
    expect(await h.advance(1000)).toBe(1000);
    expect(h.clock.now()).toBe(1000);
    expect(valid(StatusResponseSchema, (await call(h, 'GET', `${h.url}/status/${id}`)).body)).toMatchObject({
      status: 'COMPLETED',
      executionTime: 1000,
    });
    await until(() => fired === 1, 'clock view timer');
  });

  it('runs on the real clock by default, and close() frees the port', async () => {
    const h = await startEmulatorInWorker();
    const id = await submit(h, { sleep_ms: 5 });
    await until(
      async () =>
        valid(StatusResponseSchema, (await call(h, 'GET', `${h.url}/status/${id}`)).body).status ===
        'COMPLETED',
      'job done',
    );
    valid(HealthResponseSchema, (await call(h, 'GET', `${h.url}/health`)).body);
    const before = h.clock.now();
    // Real time: the emulator's worker thread on the system clock is what this test is about.
    await new Promise((r) => setTimeout(r, 20));
    expect(h.clock.now()).toBeGreaterThan(before);
    await expect(h.advance(10)).rejects.toThrow(/real/);
    await h.close();
    await expect(call(h, 'GET', `${h.url}/health`)).rejects.toThrow();
  });

  it('bad options are a ConfigError listing every problem, before any thread starts', async () => {
    const err = await startEmulatorInWorker({ workersMax: 0, port: -1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.where)).toEqual(
      expect.arrayContaining(['port', 'workersMax']),
    );
    await expect(startEmulatorInWorker({ clock: new ManualClock() })).rejects.toThrow(ConfigError);
  });

  it('a port already taken is reported as an error from the worker', async () => {
    const first = await startEmulatorInWorker();
    open.push(first);
    const port = Number(new URL(first.url).port);
    await expect(startEmulatorInWorker({ port })).rejects.toThrow(/EADDRINUSE/);
    expectStatus(await call(first, 'GET', `${first.url}/health`), 200);
  });
});
