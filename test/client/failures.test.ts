import { getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createJobClient, type JobClient, type JobClientOptions } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { closedPort, sendJson, startServer, type TestServer } from './test-server.js';

const KEY = 'sk-secret-failures-0987654321';

function client(
  baseUrl: string,
  records: ExchangeRecord[],
  extra: Partial<JobClientOptions> = {},
): JobClient {
  return createJobClient({
    baseUrl,
    apiKey: KEY,
    auth: 'bearer',
    connections: 2,
    timeoutMs: 2000,
    clock: systemClock,
    onRecord: (r) => records.push(r),
    ...extra,
  });
}

describe('JobClient failures become records', () => {
  let server: TestServer;
  const stalled: ServerResponse[] = [];

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url.endsWith('/health')) return sendJson(res, 200, { jobs: {}, workers: {} });
      if (req.url.includes('/status/stall')) {
        stalled.push(res);
        return;
      }
      if (req.url.includes('/status/drip')) {
        // Headers at once, then a byte every 50 ms forever: undici's idle-body timer never fires,
        // only the whole-exchange deadline can end it.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
        stalled.push(res);
        return;
      }
      if (req.url.includes('/status/notjson')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id": "job-1", "status": ');
        return;
      }
      if (req.url.includes('/status/html502')) {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>bad gateway</html>');
        return;
      }
      if (req.url.includes('/status/echo-key')) {
        // A hostile server that puts the key it was sent into its answer.
        return sendJson(res, 400, { error: `bad key ${req.headers.authorization ?? ''}` });
      }
      sendJson(res, 404, { error: 'no such job' });
    });
  });

  afterAll(async () => {
    for (const res of stalled) res.destroy();
    await server.close();
  });

  it('records a refused connection with ECONNREFUSED and does not throw', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`http://127.0.0.1:${String(await closedPort())}/v2/ep`, records);
    const [a, b] = await Promise.all([c.run({ input: {} }), c.status('job-1')]);
    await c.destroy();
    expect(a.status).toBeUndefined();
    expect(a.error).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED' });
    expect(b.error).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED' });
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r.error?.kind).toBe('refused');
      expect(r.sentAt).toBeLessThanOrEqual(r.endAt);
      expect(r.firstByteAt).toBeUndefined();
      expect(r.resBytes).toBe(0);
    }
  });

  it('records a server that never answers as a timeout', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records, { timeoutMs: 300 });
    // Real time: the client's timeout ends a real socket exchange with a loopback server.
    const started = performance.now();
    const r = await c.status('stall');
    await c.destroy();
    // measured 2026-11-26: 311-457 ms with 8 agents busy on 2 cores; margin 2000 ms
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.error?.kind).toBe('timeout');
    expect(r.status).toBeUndefined();
    expect(records).toHaveLength(1);
  });

  it('ends a body that trickles past the timeout, keeping the status', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records, { timeoutMs: 400 });
    // Real time: the client's timeout ends a real socket exchange with a loopback server.
    const started = performance.now();
    const r = await c.status('drip');
    const took = performance.now() - started;
    await c.destroy();
    // Never early: the deadline is set after `started`, and the sweep ends nothing before it.
    expect(took).toBeGreaterThanOrEqual(390);
    // measured 2026-11-26: 414-539 ms with 8 agents busy on 2 cores; margin 1500 ms
    expect(took).toBeLessThan(1500);
    expect(r.status).toBe(200);
    expect(r.error).toMatchObject({ kind: 'timeout', code: 'JOBSTORM_DEADLINE' });
    expect(records[0]?.firstByteAt).toBeDefined();
  });

  it('marks a 2xx answer that is not JSON as bad-json but keeps its status', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records);
    const r = await c.status('notjson');
    const gateway = await c.status('html502');
    await c.close();
    expect(r.status).toBe(200);
    expect(r.error?.kind).toBe('bad-json');
    expect(records[0]?.body).toBe('{"id": "job-1", "status": ');
    // A non-JSON error page is evidence, not a transport failure.
    expect(gateway.status).toBe(502);
    expect(gateway.error).toBeUndefined();
    expect(records[1]?.body).toBe('<html>bad gateway</html>');
  });

  it('aborts an exchange when the caller signal fires, and before it starts when already aborted', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records, { timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = [
      c.status('stall', {}, { signal: controller.signal }),
      c.status('stall', {}, { signal: controller.signal }),
    ];
    // Real time: aborts real socket exchanges in flight.
    setTimeout(() => controller.abort(), 50);
    const results = await Promise.all(pending);
    const late = await c.health({ signal: controller.signal });
    await c.destroy();
    for (const r of [...results, late])
      expect(r.error).toMatchObject({ kind: 'aborted', code: 'UND_ERR_ABORTED' });
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.endAt - r.sentAt < 5000)).toBe(true);
  });

  it('listens once on a run-wide signal however many requests it covers', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records, { connections: 30, timeoutMs: 10_000 });
    const controller = new AbortController();
    const before = stalled.length;
    const pending = Array.from({ length: 25 }, () => c.status('stall', {}, { signal: controller.signal }));
    // Counted once all 25 are at the server, so every one has started (and listened if it would),
    // instead of after 50 ms that a loaded machine may not fit them into.
    await vi.waitFor(() => expect(stalled.length - before).toBe(25), { timeout: 10_000, interval: 5 });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    const results = await Promise.all(pending);
    await c.destroy();
    expect(results.every((r) => r.error?.kind === 'aborted')).toBe(true);
    expect(records).toHaveLength(25);
  });

  it('never writes the key into records or error messages', async () => {
    const records: ExchangeRecord[] = [];
    const c = client(`${server.url}/v2/ep`, records);
    await c.status('echo-key');
    await c.status('missing');
    await c.send({ op: 'health', method: 'GET', path: '/health', auth: 'wrong' });
    const dead = client(`http://127.0.0.1:${String(await closedPort())}/v2/ep`, records);
    await dead.health();
    await c.close();
    await dead.destroy();
    expect(records).toHaveLength(4);
    expect(JSON.stringify(records)).not.toContain(KEY);
    expect(records[0]?.body).toEqual({ error: 'bad key Bearer [key]' });
    expect(() =>
      createJobClient({
        baseUrl: `http://user:${KEY}@127.0.0.1:1/v2/ep`,
        apiKey: KEY,
        auth: 'bearer',
        connections: 1,
        timeoutMs: 100,
        clock: systemClock,
        onRecord: () => undefined,
      }),
    ).toThrow(/credentials/);
    expect(() =>
      createJobClient({
        baseUrl: 'http://127.0.0.1:1/v2/ep?key=1',
        apiKey: KEY,
        auth: 'bearer',
        connections: 1,
        timeoutMs: 100,
        clock: systemClock,
        onRecord: () => undefined,
      }),
    ).toThrow(/query/);
  });
});
