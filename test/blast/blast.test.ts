import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blast } from '../../src/blast/index.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { closedPort, sendJson, startServer, type TestServer } from '../client/test-server.js';

const HEALTH = {
  jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
  workers: { idle: 1, running: 0 },
};

describe('blast', () => {
  let server: TestServer;
  let count = 0;

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/v2/ep/health') return sendJson(res, 200, HEALTH);
      if (req.url === '/v2/ep/run') {
        // Every third submission is throttled, so records must carry both outcomes.
        count++;
        if (count % 3 === 0) return sendJson(res, 429, { error: 'rate limited' }, { 'Retry-After': '2' });
        return sendJson(res, 200, { id: `job-${String(count)}`, status: 'IN_QUEUE' });
      }
      sendJson(res, 404, { error: 'no route' });
    });
  });

  afterAll(() => server.close());

  it('turns N responses into N records with their statuses, parsing only non-2xx bodies', async () => {
    count = 0;
    const records: ExchangeRecord[] = [];
    const body = JSON.stringify({ input: { n: 1 } });
    const result = await blast({
      url: `${server.url}/v2/ep`,
      op: 'run',
      method: 'POST',
      path: '/run',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body,
      connections: 4,
      amount: 90,
      onRecord: (r) => records.push(r),
      shard: '1/1',
      req: { auth: 'bearer' },
    });
    expect(records).toHaveLength(90);
    expect(result.responses).toBe(90);
    expect(result.errors).toBe(0);
    expect(result.byStatus).toEqual({ 200: 60, 429: 30 });
    expect(result.totals['2xx']).toBe(60);
    expect(result.totals['4xx']).toBe(30);
    expect(server.seen.filter((s) => s.url === '/v2/ep/run')).toHaveLength(90);
    expect(
      server.seen.every((s) => s.headers.authorization === 'Bearer k' && s.body.toString() === body),
    ).toBe(true);
    const throttled = records.filter((r) => r.status === 429);
    const ok = records.filter((r) => r.status === 200);
    expect(throttled).toHaveLength(30);
    for (const r of throttled) {
      expect(r.body).toEqual({ error: 'rate limited' });
      expect(r.retryAfter).toBe('2');
    }
    for (const r of ok) expect(r.body).toBeUndefined();
    for (const r of records) {
      expect(r).toMatchObject({
        v: 1,
        type: 'exchange',
        op: 'run',
        method: 'POST',
        path: '/run',
        shard: '1/1',
        req: { auth: 'bearer' },
      });
      expect(r.reqBytes).toBe(Buffer.byteLength(body));
      expect(r.resBytes).toBeGreaterThan(0);
      expect(r.intendedAt).toBe(r.sentAt);
      expect(r.sentAt).toBeLessThanOrEqual(r.endAt);
      if (r.firstByteAt !== undefined) {
        expect(r.firstByteAt).toBeGreaterThanOrEqual(r.sentAt);
        expect(r.firstByteAt).toBeLessThanOrEqual(r.endAt);
      }
    }
    expect(new Set(records.map((r) => r.seq)).size).toBe(90);
  });

  it('parses every body when asked', async () => {
    const records: ExchangeRecord[] = [];
    await blast({
      url: server.url,
      op: 'health',
      method: 'GET',
      path: '/v2/ep/health',
      connections: 2,
      amount: 10,
      parse: 'always',
      onRecord: (r) => records.push(r),
    });
    expect(records).toHaveLength(10);
    for (const r of records) expect(r.body).toEqual(HEALTH);
  });

  it('holds a fixed rate within a few percent', async () => {
    const records: ExchangeRecord[] = [];
    const result = await blast({
      url: `${server.url}/v2/ep`,
      op: 'health',
      method: 'GET',
      path: '/health',
      connections: 10,
      rate: 250,
      durationMs: 2000,
      onRecord: (r) => records.push(r),
    });
    expect(records).toHaveLength(result.responses);
    expect(result.responses).toBeGreaterThanOrEqual(485);
    expect(result.responses).toBeLessThanOrEqual(515);
    expect(result.elapsedMs).toBe(2000);
    expect(result.achievedRate).toBeGreaterThan(250 * 0.97);
    expect(result.achievedRate).toBeLessThan(250 * 1.03);
    expect(records.every((r) => r.status === 200)).toBe(true);
  });

  it('records refused connections as errors without throwing', async () => {
    const records: ExchangeRecord[] = [];
    const port = await closedPort();
    const result = await blast({
      url: `http://127.0.0.1:${String(port)}/v2/ep`,
      op: 'health',
      method: 'GET',
      path: '/health',
      connections: 1,
      durationMs: 200,
      onRecord: (r) => {
        if (records.length < 1000) records.push(r);
      },
    });
    expect(result.responses).toBe(0);
    expect(result.errors).toBeGreaterThan(0);
    expect(records[0]?.error).toMatchObject({ kind: 'refused', code: 'ECONNREFUSED' });
    expect(records[0]?.status).toBeUndefined();
  });

  it('stops early when its signal aborts', async () => {
    const controller = new AbortController();
    // Real time: autocannon drives real sockets on real time.
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    const result = await blast({
      url: `${server.url}/v2/ep`,
      op: 'health',
      method: 'GET',
      path: '/health',
      connections: 2,
      rate: 50,
      durationMs: 20_000,
      signal: controller.signal,
      onRecord: () => undefined,
    });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result.responses).toBeGreaterThan(0);
  });
});
