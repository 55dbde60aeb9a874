import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JobClient } from '../../src/client/job-client.js';
import { systemClock } from '../../src/core/clock.js';
import { exchanges, inlineScenario, runCollecting } from './helpers.js';

/*
 * Issue 35 item 4: before the first scheduled arrival the target's connections are open, so the
 * first requests do not wait for them while the schedule runs. A small foreign server counts the
 * TCP connections it accepts and when, against when the first request came, all on its own clock:
 * the connections were there before the first request, opening them sent no request (the server
 * saw exactly the run's requests), and a slow run opens only what its first second needs.
 */

interface Seen {
  /** When each connection was accepted (ms, the server thread's clock). */
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
 * In its own thread, so it accepts a connection as soon as it is opened: in the test's thread, a
 * busy loop accepts late, and a connection opened early would look opened late.
 */
const SERVER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createServer } = require('node:http');
const accepted = [];
const requests = [];
const ids = new WeakMap();
let n = 0;
const server = createServer((req, res) => {
  requests.push({ at: performance.now(), connection: ids.get(req.socket) ?? -1 });
  req.resume();
  const body = req.method === 'POST'
    ? '{"id":"job-' + String(++n) + '","status":"IN_QUEUE"}'
    : '{"id":"job","status":"COMPLETED","output":{"ok":true}}';
  res.writeHead(200, { 'content-type': 'application/json', ...(workerData.close ? { connection: 'close' } : {}) });
  res.end(body);
});
server.on('connection', (socket) => {
  ids.set(socket, accepted.length);
  accepted.push(performance.now());
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'seen') parentPort.postMessage({ accepted, requests });
  else server.close(() => parentPort.close());
});
`;

async function countingServer(opts: { close?: boolean } = {}): Promise<CountingServer> {
  const worker = new Worker(SERVER, { eval: true, workerData: { close: opts.close === true } });
  const next = <T>(): Promise<T> => new Promise<T>((resolve) => worker.once('message', resolve));
  const { port } = await next<{ port: number }>();
  return {
    url: `http://127.0.0.1:${String(port)}/v2/ep`,
    seen: () => {
      const answer = next<Seen>();
      worker.postMessage('seen');
      return answer;
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

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
    const { records } = await runCollecting(
      inlineScenario(scenario(40, 1)),
      {
        baseUrl: server.url,
        apiKey: 'k',
        ownsEndpoint: false,
      },
      {
        // Just before time 0, what the server has (it accepts them in its own time).
        startAt: async () => {
          atZero = await vi.waitFor(async () => {
            const seen = await server.seen();
            expect(seen.accepted).toHaveLength(8);
            return seen;
          });
          return performance.timeOrigin + performance.now();
        },
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
  }, 30_000);

  it('a run whose first second has one arrival opens one', async () => {
    const server = await countingServer();
    closers.push(server.close);
    let atZero: Seen | undefined;
    const { records } = await runCollecting(
      inlineScenario(scenario(1, 2)),
      {
        baseUrl: server.url,
        apiKey: 'k',
        ownsEndpoint: false,
      },
      {
        startAt: async () => {
          atZero = await vi.waitFor(async () => {
            const seen = await server.seen();
            expect(seen.accepted).toHaveLength(1);
            return seen;
          });
          // Time enough for more to show, were more opened.
          await new Promise((resolve) => setTimeout(resolve, 100));
          atZero = await server.seen();
          return performance.timeOrigin + performance.now();
        },
      },
    );
    expect(exchanges(records)).toHaveLength(4);
    // One, not the pool's 8 (undici may open a second one during the run, for a request sent
    // just as the one before it ends: the pool's choice).
    expect(atZero?.accepted).toHaveLength(1);
    expect(atZero?.requests).toEqual([]);
    expect((await server.seen()).requests[0]?.connection).toBe(0);
  }, 30_000);
  it('a closed-model run opens one per virtual user', async () => {
    const server = await countingServer();
    closers.push(server.close);
    let atZero: Seen | undefined;
    await runCollecting(
      inlineScenario(scenario(1, 1).replace('duration: 1s, rate: 1', 'duration: 300ms, vus: 3')),
      { baseUrl: server.url, apiKey: 'k', ownsEndpoint: false },
      {
        startAt: async () => {
          atZero = await vi.waitFor(async () => {
            const seen = await server.seen();
            expect(seen.accepted).toHaveLength(3);
            return seen;
          });
          return performance.timeOrigin + performance.now();
        },
      },
    );
    expect(atZero?.requests).toEqual([]);
  }, 30_000);
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
