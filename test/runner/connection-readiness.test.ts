import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobClient } from '../../src/client/job-client.js';
import { systemClock } from '../../src/core/clock.js';
import { ManualClock } from '../../src/core/manual-clock.js';
import type { RunOptions, Target } from '../../src/runner/run-options.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS, quietLoop } from '../helpers/manual-target.js';
import { exchanges, inlineScenario, runCollecting, type Collected } from './helpers.js';

/*
 * Issue 35 item 4: before the first scheduled arrival the target's connections are open, so the
 * first requests do not wait for them while the schedule runs. A small foreign server counts the
 * TCP connections it accepts and when, against when the first request came, all on its own clock:
 * the connections were there before the first request, opening them sent no request (the server
 * saw exactly the run's requests), and a slow run opens only what its first second needs.
 * The runs pace on a manual clock (issue 46); the sockets are real, so what waits for the server
 * to accept them waits in real time.
 */

interface Seen {
  /** When each connection was accepted (ms, the server's performance clock). */
  accepted: number[];
  /** When each request came, and the connection it came on (index into `accepted`). */
  requests: { at: number; connection: number }[];
}

interface CountingServer {
  url: string;
  /** What the server saw so far. */
  seen: () => Promise<Seen>;
  close: () => Promise<void>;
}

/*
 * In this thread, on a manual clock: the clock driver sees each request reach the server and its
 * answer go, so time moves only once the exchanges in flight are done (a server in another thread
 * is invisible to it). When a connection was accepted is not what is judged, only how many.
 */
async function countingServer(opts: { close?: boolean } = {}): Promise<CountingServer> {
  const accepted: number[] = [];
  const requests: Seen['requests'] = [];
  const ids = new WeakMap<Socket, number>();
  let n = 0;
  const server = createServer((req, res) => {
    // Real time: when a request came is kept for a failure's message, never judged.
    requests.push({ at: performance.now(), connection: ids.get(req.socket) ?? -1 });
    req.resume();
    const body =
      req.method === 'POST'
        ? `{"id":"job-${String(++n)}","status":"IN_QUEUE"}`
        : '{"id":"job","status":"COMPLETED","output":{"ok":true}}';
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(opts.close === true ? { connection: 'close' } : {}),
    });
    res.end(body);
  });
  server.on('connection', (socket: Socket) => {
    ids.set(socket, accepted.length);
    // Real time: when a socket was accepted is kept for a failure's message, never judged.
    accepted.push(performance.now());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/v2/ep`,
    // A copy, as a message from another thread was: later requests do not change what was seen.
    seen: () => Promise.resolve({ accepted: [...accepted], requests: [...requests] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/**
 * The scenario paced on a manual clock: the run's seconds pass as fast as loopback answers.
 * `startAt` is the test's, and its time 0 the clock's reading when it returns.
 */
async function runManual(
  s: Scenario,
  target: Target,
  startAt: (clock: ManualClock) => Promise<void>,
): Promise<Collected> {
  const clock = new ManualClock(0, MANUAL_EPOCH_MS);
  const extra: Partial<RunOptions> = {
    clock,
    generatorProbe: quietLoop,
    startAt: async () => {
      await startAt(clock);
      return clock.epochNow();
    },
  };
  return new ClockDriver(clock).run(runCollecting(s, target, extra));
}

const scenario = (rate: number, seconds: number): string => `
name: ready-connections
target: { connections: 8, timeout: 10s }
phases: [{ duration: ${String(seconds)}s, rate: ${String(rate)} }]
flows:
  - name: run-status
    steps:
      - run: { input: { n: 1 } }
      - status: {}
`;

describe('connections opened before time 0', () => {
  it('are all open at time 0, opened without a request, and carry the run', async () => {
    const server = await countingServer();
    closers.push(server.close);
    let atZero: Seen | undefined;
    const { records } = await runManual(
      inlineScenario(scenario(40, 1)),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
      // Just before time 0, what the server has (its thread accepts them in its own, real, time).
      async () => {
        atZero = await vi.waitFor(async () => {
          const seen = await server.seen();
          expect(seen.accepted).toHaveLength(8);
          return seen;
        });
      },
    );
    // 40 arrivals in the first second, 8 connections: all 8 open before time 0, and opening them
    // sent no request.
    expect(atZero?.requests).toEqual([]);
    const seen = await server.seen();
    // None opened during the run: the pool took the opened ones.
    expect(seen.accepted).toHaveLength(8);
    // The server saw the run's requests and nothing else.
    expect(exchanges(records)).toHaveLength(80);
    expect(seen.requests).toHaveLength(80);
    expect(records.filter((r) => r.type === 'generator')).toEqual([]);
  });

  it('a run whose first second has one arrival opens one', async () => {
    const server = await countingServer();
    closers.push(server.close);
    let atZero: Seen | undefined;
    const { records } = await runManual(
      inlineScenario(scenario(1, 2)),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
      async () => {
        atZero = await vi.waitFor(async () => {
          const seen = await server.seen();
          expect(seen.accepted).toHaveLength(1);
          return seen;
        });
        // Real time: the server thread's accepts of real sockets, enough for more to show were more opened.
        await new Promise((resolve) => setTimeout(resolve, 100));
        atZero = await server.seen();
      },
    );
    expect(exchanges(records)).toHaveLength(4);
    // One, not the pool's 8 (undici may open a second one during the run, for a request sent
    // just as the one before it ends: the pool's choice).
    expect(atZero?.accepted).toHaveLength(1);
    expect(atZero?.requests).toEqual([]);
    expect((await server.seen()).requests[0]?.connection).toBe(0);
  });
  it('a closed-model run opens one per virtual user', async () => {
    const server = await countingServer();
    closers.push(server.close);
    let atZero: Seen | undefined;
    await runManual(
      // Think time: on a manual clock, loopback answers take no time, and users that never wait
      // would loop forever at one instant.
      inlineScenario(
        scenario(1, 1)
          .replace('duration: 1s, rate: 1', 'duration: 300ms, vus: 3')
          .replace('      - status: {}', '      - status: {}\n      - sleep: 20ms'),
      ),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
      async () => {
        atZero = await vi.waitFor(async () => {
          const seen = await server.seen();
          expect(seen.accepted).toHaveLength(3);
          return seen;
        });
      },
    );
    expect(atZero?.requests).toEqual([]);
  });
});

describe('JobClient.openConnections', () => {
  const client = (url: string, firstOpens: number[][]): JobClient =>
    new JobClient({
      baseUrl: url,
      apiKey: 'k',
      auth: 'bearer',
      connections: 2,
      clock: systemClock,
      onRecord: () => undefined,
      onFirstOpen: (a, b) => firstOpens.push([a, b]),
    });

  it('without it, the pool opens its connections as the first requests need them, and says so', async () => {
    const server = await countingServer();
    closers.push(server.close);
    const firstOpens: number[][] = [];
    const c = client(server.url, firstOpens);
    await Promise.all([c.health(), c.health()]);
    await c.destroy();
    expect((await server.seen()).accepted).toHaveLength(2);
    // Neither was open before the first request was sent: both were opened for it.
    expect(firstOpens).toHaveLength(2);
    for (const [a, b] of firstOpens) expect(b).toBeGreaterThanOrEqual(a ?? Infinity);
  });

  it('with it, requests find them open: no first opening to wait for', async () => {
    const server = await countingServer();
    closers.push(server.close);
    const firstOpens: number[][] = [];
    const c = client(server.url, firstOpens);
    expect(await c.openConnections(5)).toBe(2);
    // Open on the client's side; the server thread accepts them when it gets to.
    const before = await vi.waitFor(async () => {
      const seen = await server.seen();
      expect(seen.accepted).toHaveLength(2);
      return seen;
    });
    expect(before.requests).toHaveLength(0);
    await Promise.all([c.health(), c.health()]);
    // Both open already: nothing more to open.
    expect(await c.openConnections(2)).toBe(2);
    await c.destroy();
    const after = await server.seen();
    expect(after.accepted).toHaveLength(2);
    expect(after.requests.map((r) => r.connection).sort()).toEqual([0, 1]);
    expect(firstOpens).toEqual([]);
  });

  it('a connection the target closed and the pool opens again is the target’s doing: not reported', async () => {
    const server = await countingServer({ close: true });
    closers.push(server.close);
    const firstOpens: number[][] = [];
    const c = client(server.url, firstOpens);
    for (let i = 0; i < 5; i++) await c.health();
    await c.destroy();
    // Every answer closed its connection: five connections, of which only the pool's size were first ones.
    expect((await server.seen()).accepted).toHaveLength(5);
    expect(firstOpens.length).toBeLessThanOrEqual(2);
    expect(firstOpens.length).toBeGreaterThanOrEqual(1);
  });
});
