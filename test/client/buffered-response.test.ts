import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient, type JobClient } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { BufferedResponse } from '../../src/client/buffered-response.js';
import { DeadlineQueue } from '../../src/client/deadline-queue.js';

/*
 * Issue 17: answers are read through undici's dispatch API (BufferedResponse), not request()'s
 * body stream. What the stream did for free must still hold: a body that arrives in pieces (a
 * character split between two of them), a byte order mark, interim 1xx answers, the headers a
 * record keeps, and a deadline that fires while the request still waits for a connection.
 */

const records: ExchangeRecord[] = [];
let server: Server;
let base = '';

const SPLIT = Buffer.from('{"id":"jöb-1","status":"COMPLETED","output":{"text":"naïve ☃ — ok"}}', 'utf8');

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    req.resume();
    req.on('end', () => {
      if (url.includes('/status/pieces')) {
        // Chunked, in pieces cut inside multi-byte characters.
        res.writeHead(200, { 'content-type': 'application/json' });
        const cut1 = SPLIT.indexOf(Buffer.from('ö')) + 1;
        const cut2 = SPLIT.indexOf(Buffer.from('☃')) + 2;
        // Real time: a real loopback server splits its answer across socket reads.
        res.write(SPLIT.subarray(0, cut1));
        setTimeout(() => {
          res.write(SPLIT.subarray(cut1, cut2));
          setTimeout(() => res.end(SPLIT.subarray(cut2)), 5);
        }, 5);
      } else if (url.includes('/status/bom')) {
        const body = Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from('{"id":"bom-1","status":"IN_QUEUE"}'),
        ]);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        res.end(body);
      } else if (url.includes('/status/interim')) {
        // Real time: a real loopback server sends its interim answer first.
        res.writeProcessing();
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"id":"interim-1","status":"IN_PROGRESS"}');
        }, 5);
      } else if (url.endsWith('/health')) {
        res.writeHead(405, { allow: 'POST', 'retry-after': '7', 'content-type': 'text/plain' });
        res.end('use POST');
      } else if (url.includes('/status/slow')) {
        // Real time: a real loopback server holds its one connection.
        setTimeout(() => res.end('{"id":"slow-1","status":"IN_QUEUE"}'), 400);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v2/ep`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(timeoutMs = 5000, connections = 4): JobClient {
  return createJobClient({
    baseUrl: base,
    apiKey: 'k',
    auth: 'bearer',
    connections,
    timeoutMs,
    clock: systemClock,
    onRecord: (r) => records.push(r),
  });
}

describe('answers read whole through the dispatch API', () => {
  it('joins a body that arrives in pieces cut inside characters, and counts its bytes', async () => {
    const c = client();
    const r = await c.status('pieces');
    await c.destroy();
    expect(r.error).toBeUndefined();
    expect(r.body).toEqual(JSON.parse(SPLIT.toString('utf8')));
    expect(r.record.resBytes).toBe(SPLIT.length);
    expect(r.record.firstByteAt).toBeLessThanOrEqual(r.record.endAt);
  });

  it('drops a UTF-8 byte order mark, as a body stream read as text does', async () => {
    const c = client();
    const r = await c.status('bom');
    await c.destroy();
    expect(r.error).toBeUndefined();
    expect(r.body).toEqual({ id: 'bom-1', status: 'IN_QUEUE' });
  });

  it('waits past an interim 102 answer for the final one', async () => {
    const c = client();
    const r = await c.status('interim');
    await c.destroy();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: 'interim-1', status: 'IN_PROGRESS' });
  });

  it('keeps Allow of a 405 and Retry-After; a body that is not JSON on a 4xx is evidence, not an error', async () => {
    const c = client();
    const r = await c.health();
    await c.destroy();
    expect(r.status).toBe(405);
    expect(r.record.allow).toBe('POST');
    expect(r.record.retryAfter).toBe('7');
    expect(r.body).toBe('use POST');
    expect(r.error).toBeUndefined();
  });

  it('says how long a request waited for a free connection, and only when it did', async () => {
    // One connection: the second request goes onto it only once the first (400 ms) is answered.
    const c = client(5000, 1);
    const [first, second] = await Promise.all([c.status('slow'), c.status('slow-2')]);
    await c.destroy();
    // The first waited only for the connection to open (under 1 ms on a quiet host: no field).
    // measured 2026-11-25: 0-111 ms with 8 agents busy on 2 cores; margin 200 ms (the second waits 350)
    expect(first.record.queuedMs ?? 0).toBeLessThan(200);
    expect(second.record.queuedMs).toBeGreaterThanOrEqual(350);
    // It went onto the connection when the first answer ended, not later.
    expect(second.record.sentAt + (second.record.queuedMs ?? 0)).toBeGreaterThanOrEqual(
      first.record.endAt - 1,
    );
    expect(second.record.sentAt + (second.record.queuedMs ?? 0)).toBeLessThanOrEqual(
      second.record.endAt - 350,
    );
  });

  it('times out a request still queued behind a busy connection, at its deadline', async () => {
    // One connection: the second request waits for the first (400 ms) and its 150 ms deadline ends it.
    const c = client(150, 1);
    // Real time: the client's deadline ends a real socket exchange.
    const started = performance.now();
    const [slow, queued] = await Promise.all([c.status('slow'), c.status('slow-2')]);
    await c.destroy();
    expect(slow.error?.kind).toBe('timeout');
    expect(queued.error?.kind).toBe('timeout');
    expect(queued.status).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('BufferedResponse once its answer is whole', () => {
  // undici's controller reaches the request, its handler chain and the raw header buffers. Held
  // after the answer, that cluster survived scavenges and was promoted (bench/gc-survival.ts).
  const reachesController = (o: object, controller: object): boolean =>
    Object.values(o).some((v) => v === controller);

  it("lets go of undici's controller after the end of the answer and after an error", () => {
    for (const finish of ['end', 'error'] as const) {
      const queue = new DeadlineQueue(10_000);
      const deadline = queue.start(undefined);
      const answer = new BufferedResponse(deadline, systemClock);
      const controller = {
        rawHeaders: [Buffer.from('content-type'), Buffer.from('application/json')],
        abort: () => undefined,
      };
      answer.onRequestStart(controller as unknown as Parameters<BufferedResponse['onRequestStart']>[0]);
      expect(reachesController(answer, controller)).toBe(true);
      answer.onResponseStart(controller as never, 200, { 'content-type': 'application/json' });
      answer.onResponseData(controller as never, Buffer.from('{"id":"a"}'));
      if (finish === 'end') answer.onResponseEnd();
      else answer.onResponseError(controller as never, new Error('reset'));
      queue.finish(deadline);
      queue.close();
      expect(reachesController(answer, controller)).toBe(false);
      expect(deadline.watcher).toBeNull();
    }
  });
});
