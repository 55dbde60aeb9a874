import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { EmulatorCore } from '../../src/emulator/emulator-core.js';
import type { Endpoint } from '../../src/emulator/endpoint.js';
import { EmulatorServer } from '../../src/emulator/http/server.js';
import { resolveOptions } from '../../src/emulator/options.js';
import { call, expectStatus } from './helpers.js';

/*
 * A bug of ours in a route, synchronous or after an await, is answered 500 with a JSON body; the
 * server serves on and nothing escapes as an unhandled rejection. The bug is injected by replacing
 * one endpoint method on a real emulator core behind the real server.
 */

const key = { apiKey: 'k' };
let server: EmulatorServer;
let core: EmulatorCore;
let ep: Endpoint;
let base: string;
const clock = new ManualClock();
const escaped: unknown[] = [];
const onEscape = (err: unknown): void => {
  escaped.push(err);
};

beforeAll(async () => {
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  core = new EmulatorCore(clock, resolveOptions({ apiKey: key.apiKey, coldStartMs: 0 }), () =>
    Promise.resolve(200),
  );
  server = new EmulatorServer(core, () => undefined);
  const address = await server.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${String(address.port)}/v2/jobstorm`;
  const found = core.endpoints.get('jobstorm');
  if (found === undefined) throw new Error('no endpoint');
  ep = found;
});
afterAll(async () => {
  await core.close();
  await server.close();
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
});

describe('the last-resort handler', () => {
  it('an exception in a synchronous route is a 500 with a JSON body, and the server serves on', async () => {
    const id = ((await call(key, 'POST', `${base}/run`, { body: { input: {} } })).body as { id: string }).id;
    const original = ep.statusView.bind(ep);
    ep.statusView = () => {
      throw new Error('injected status bug');
    };
    try {
      const r = await call(key, 'GET', `${base}/status/${id}`);
      expectStatus(r, 500);
      expect(r.body).toEqual({ error: 'emulator bug: injected status bug' });
    } finally {
      ep.statusView = original;
    }
    expectStatus(await call(key, 'GET', `${base}/status/${id}`), 200);
  });

  it('an exception after the body was read (an async route) is a 500, and the concurrency slot is given back', async () => {
    const original = ep.submit.bind(ep);
    ep.submit = () => {
      throw new Error('injected submit bug');
    };
    try {
      for (const op of ['run', 'runsync']) {
        const r = await call(key, 'POST', `${base}/${op}`, { body: { input: {} } });
        expectStatus(r, 500);
        expect(r.body).toEqual({ error: 'emulator bug: injected submit bug' });
      }
    } finally {
      ep.submit = original;
    }
    const limits = ep.limiter.snapshot(core.now(), 0);
    expect(limits.run?.inFlight).toBe(0);
    expect(limits.runsync?.inFlight).toBe(0);
    expectStatus(await call(key, 'POST', `${base}/run`, { body: { input: {} } }), 200);
    expect(escaped).toEqual([]);
  });

  it('an exception in a job timer is counted in the admin state, not thrown into the event loop', async () => {
    const original = ep.wait.bind(ep);
    let waiting: () => void = () => undefined;
    const registered = new Promise<void>((r) => (waiting = r));
    // The waiter of a /runsync is called from the job's timer when the job ends.
    ep.wait = (job, waiter) => {
      const stop = original(job, () => {
        waiter(job);
        throw new Error('injected timer bug');
      });
      waiting();
      return stop;
    };
    try {
      const pending = call(key, 'POST', `${base}/runsync`, { body: { input: { sleep_ms: 10 } } });
      // The clock moves once the /runsync waits on its job, not after 100 ms of real time that a
      // loaded machine may not reach the route within.
      await registered;
      clock.advance(1000);
      expectStatus(await pending, 200);
    } finally {
      ep.wait = original;
    }
    expect(core.bugs.count).toBe(1);
    const state = await call(key, 'GET', `${base.replace('/v2/jobstorm', '')}/_emulator/state`);
    expect(state.body).toMatchObject({ bugs: { count: 1, last: 'injected timer bug' } });
    expect(escaped).toEqual([]);
  });
});
