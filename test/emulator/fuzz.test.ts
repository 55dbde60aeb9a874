import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { SeededRandom } from '../../src/emulator/random.js';
import { call, manualEmulator } from './helpers.js';

/*
 * Thousands of random and malformed requests (paths, methods, headers, bodies) must never get a
 * 5xx nor crash the emulator. Time runs fast on the manual clock meanwhile, so jobs, waits, ttl and
 * retention all happen during the fuzz.
 */

const rng = new SeededRandom(20_260_101);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)] as T;
const int = (n: number): number => Math.floor(rng.next() * n);

let h: EmulatorHandle;
let clock: ManualClock;
let ticker: NodeJS.Timeout;
const ids: string[] = [];

beforeAll(async () => {
  ({ h, clock } = await manualEmulator({ workersMax: 4, endpoints: ['jobstorm', 'other'] }));
  // 10 s of emulator time every 2 ms: a 300 s runsync wait passes in about 60 ms.
  ticker = setInterval(() => clock.advance(10_000), 2);
});
afterAll(async () => {
  clearInterval(ticker);
  await h.close();
});

function randomString(): string {
  return pick(['', 'a', 'x'.repeat(int(3000)), '%', '%zz', '..', '../../etc/passwd', 'é', '\u0000', '💥', 'null', '{}', ids[int(ids.length)] ?? 'none', String(rng.next())]);
}

function randomJson(depth = 0): unknown {
  switch (int(depth > 3 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 999, 10_000, 300_001]);
    case 2:
      return randomString();
    case 3:
      return rng.next() < 0.5;
    case 4:
      return pick([undefined, 'sleep_ms', 'fail']);
    case 5:
      return Array.from({ length: int(4) }, () => randomJson(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(['input', 'policy', 'webhook', 's3Config', 'ttl', 'executionTimeout', 'lowPriority', randomString()]), randomJson(depth + 1)]));
  }
}

function randomInput(): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (rng.next() < 0.5) input.sleep_ms = pick([0, 5, 1000, 60_000, -1, 'soon', 1.5, 1e12]);
  if (rng.next() < 0.2) input.fail = pick(['boom', true, 0, { why: 'x' }, null]);
  if (rng.next() < 0.2) input.stream = pick([0, 1, 3, 50, -2, 'many', 100_001]);
  if (rng.next() < 0.2) input.chunk_bytes = pick([0, 10, 1_500_000, 2_000_000_000, -5]);
  if (rng.next() < 0.2) input.output_bytes = pick([0, 100, 2_000_000, 1e15, 'big']);
  return input;
}

function randomBody(): string | undefined {
  switch (int(7)) {
    case 0:
      return undefined;
    case 1:
      return JSON.stringify(randomJson());
    case 2:
      return JSON.stringify({ input: randomInput(), policy: pick([undefined, { ttl: pick([10_000, 5, 'x']) }, { executionTimeout: pick([5000, 1, 1e20]) }, { lowPriority: pick([true, 'yes']) }]) });
    case 3:
      return JSON.stringify({ input: randomInput() }).slice(0, int(40));
    case 4:
      return Buffer.from(Array.from({ length: int(200) }, () => int(256))).toString('latin1');
    case 5:
      return JSON.stringify({ input: randomInput(), webhook: pick(['http://127.0.0.1:1/hook', 'not a url', 'ftp://x']) });
    default:
      return JSON.stringify({ input: randomInput() });
  }
}

function randomPath(): string {
  const query = pick(['', '', '', '?wait=1000', '?wait=abc', '?wait=300000', '?ttl=1', '?ttl=-5', '?ttl=99999999999999999', '?&&=', '?%', `?wait=${String(int(400_000))}`, '?jobId=x']);
  if (rng.next() < 0.6) {
    // Plausible: a real operation, with a job id where it takes one.
    const op = pick(['run', 'run', 'runsync', 'status', 'status', 'status-sync', 'stream', 'cancel', 'retry', 'purge-queue', 'health']);
    const withId = ['status', 'status-sync', 'stream', 'cancel', 'retry'].includes(op);
    const id = withId ? `/${encodeURIComponent(rng.next() < 0.7 ? (ids[int(ids.length)] ?? 'none') : randomString())}` : '';
    return `${pick(['/v2/jobstorm', '/v2/jobstorm', '/v2/other', '/v2/qwen3-32b-awq'])}/${op}${id}${query}`;
  }
  const root = pick(['/v2/jobstorm', '/v2/other', '/v2/nope', '/v2', '/v1', '/v1/pods', '/v1/endpoints', '/_emulator', '', '/v2/%zz']);
  const op = pick(['run', 'status', 'start', 'jobstorm-pod', 'state', 'endpoints/jobstorm', 'webhooks', 'clock/advance', randomString()]);
  const id = pick(['', '/', '/a/b/c', '/start', '/jobs/x', `/${encodeURIComponent(randomString())}`]);
  return `${root}/${op}${id}${query}`;
}

function randomHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const auth = rng.next() < 0.6 ? `Bearer ${h.apiKey}` : pick([h.apiKey, `bearer   ${h.apiKey}`, 'Bearer', '', 'Basic xyz', `Bearer ${h.apiKey}x`, undefined]);
  if (auth !== undefined) headers.authorization = auth;
  if (rng.next() < 0.5) headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data; boundary=x', '']);
  if (rng.next() < 0.1) headers['x-weird'] = 'y'.repeat(int(2000));
  return headers;
}

describe('fuzz', () => {
  it('a few thousand random requests never get a 5xx and never crash the emulator', async () => {
    const url = new URL(h.url);
    // node:http rather than undici: undici refuses (or, with some inputs, stalls on) requests a
    // fuzzer wants to send; node's client sends nearly anything and fails fast on the rest.
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
    const codes = new Map<number, number>();
    let refusedByClient = 0;
    const one = (): Promise<void> => {
      const path = randomPath();
      // Writes to the fault switches would legitimately produce 5xx (server-errors): not fuzzed.
      if (path.startsWith('/_emulator/faults') || path.startsWith('/_emulator/profile')) return Promise.resolve();
      const method = pick(['GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
      const body = method === 'GET' || method === 'HEAD' ? undefined : randomBody();
      return new Promise<void>((resolve, reject) => {
        let req: ClientRequest;
        try {
          req = httpRequest({ host: url.hostname, port: url.port, path, method, headers: randomHeaders(), agent, timeout: 20_000 });
        } catch {
          refusedByClient++;
          resolve();
          return;
        }
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            codes.set(code, (codes.get(code) ?? 0) + 1);
            if (code >= 500) {
              reject(new Error(`${method} ${path.slice(0, 200)} → ${String(code)} ${text.slice(0, 300)}`));
              return;
            }
            if (code === 200 && text.startsWith('{"id"')) ids.push((JSON.parse(text) as { id: string }).id);
            resolve();
          });
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => {
          refusedByClient++;
          resolve();
        });
        req.end(body);
      });
    };
    const total = 3000;
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < total) {
          sent++;
          await one();
        }
      }),
    );
    agent.destroy();
    const fives = [...codes].filter(([c]) => c >= 500);
    expect(fives).toEqual([]);
    expect([...codes.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(2500);
    expect(refusedByClient).toBeLessThan(500);
    // The fuzz reached the real work, not only the refusals.
    expect(codes.get(200) ?? 0).toBeGreaterThan(50);
    for (const code of [400, 401, 404]) expect(codes.get(code) ?? 0).toBeGreaterThan(10);
    expect((await call(h, 'GET', `${h.url}/health`)).status).toBe(200);
  });

  it('malformed HTTP on a raw socket is answered 4xx or closed, never 5xx, and the server lives on', async () => {
    const port = Number(new URL(h.url).port);
    const raws = [
      'GARBAGE\r\n\r\n',
      'POST /v2/jobstorm/run HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v2/jobstorm/run HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n',
      `GET /v2/jobstorm/health HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
      `POST /v2/jobstorm/run HTTP/1.1\r\nHost: x\r\nAuthorization: ${h.apiKey}\r\nContent-Length: 100\r\n\r\n{"input":`,
      `POST /v2/jobstorm/run HTTP/1.1\r\nHost: x\r\nAuthorization: ${h.apiKey}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      'GET / HTTP/9.9\r\n\r\n',
    ];
    for (const raw of raws) {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let got = '';
        socket.on('data', (d: Buffer) => {
          got += d.toString('latin1');
        });
        socket.on('error', () => resolve(got));
        socket.on('close', () => resolve(got));
        socket.write(raw);
        setTimeout(() => socket.destroy(), 200);
      });
      expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
    }
    expect((await call(h, 'GET', `${h.url}/health`)).status).toBe(200);
  });
});
