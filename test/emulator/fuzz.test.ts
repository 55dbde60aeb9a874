import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorInWorker, type EmulatorHandle } from '../../src/emulator/index.js';
import { SeededRandom } from '../../src/core/seeded-random.js';
import { call } from './helpers.js';

/*
 * Twenty thousand random and hostile requests (paths, methods, headers, bodies: JSON nested 10,000
 * deep at every field, wrong types, huge numbers, unicode, truncated and stalled bodies) must never
 * get a 5xx nor crash the emulator, which must then still run a job correctly. The emulator runs
 * in a worker thread (as `jobstorm run` starts it), so the client and the server share the load
 * on two cores; its manual clock runs fast meanwhile, so jobs, waits, ttl and retention all
 * happen during the fuzz.
 */

const SEED = 20_260_101;
const TOTAL = 20_000;
const CONCURRENCY = 32;
const rng = new SeededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)] as T;
const int = (n: number): number => Math.floor(rng.next() * n);

let h: EmulatorHandle;
let ticking = true;
let ticker: Promise<void>;
const ids: string[] = [];

beforeAll(async () => {
  // A short body timeout: the fuzz's stalled bodies are answered 408 quickly.
  h = await startEmulatorInWorker({
    clock: 'manual',
    coldStartMs: 0,
    workersMax: 4,
    endpoints: ['jobstorm', 'other'],
    bodyTimeoutMs: 300,
  });
  // 10 s of emulator time every few ms: a 300 s runsync wait passes in well under a second.
  ticker = (async () => {
    while (ticking) {
      await h.advance(10_000);
      // Real time: lets the emulator's worker thread answer between advances of its clock.
      await new Promise((r) => setTimeout(r, 3));
    }
  })();
}, 60_000);
afterAll(async () => {
  ticking = false;
  await ticker;
  await h.close();
});

function randomString(): string {
  return pick([
    '',
    'a',
    'x'.repeat(int(3000)),
    '%',
    '%zz',
    '..',
    '../../etc/passwd',
    'é',
    '\u0000',
    '💥',
    'null',
    '{}',
    ids[int(ids.length)] ?? 'none',
    String(rng.next()),
  ]);
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
      return Object.fromEntries(
        Array.from({ length: int(5) }, () => [
          pick([
            'input',
            'policy',
            'webhook',
            's3Config',
            'ttl',
            'executionTimeout',
            'lowPriority',
            randomString(),
          ]),
          randomJson(depth + 1),
        ]),
      );
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

/** JSON nested `depth` deep: arrays, objects or both, with a random leaf. */
function deepJson(depth: number): string {
  const leaf = pick(['1', '"x"', 'null', '{}', '[]', '"🦄"']);
  switch (int(3)) {
    case 0:
      return '['.repeat(depth) + leaf + ']'.repeat(depth);
    case 1:
      return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
    default:
      return '[{"k":'.repeat(depth / 2) + leaf + '}]'.repeat(depth / 2);
  }
}

const DEEP = 10_000;

/** A submission with JSON nested 10,000 deep at one field. */
function deepSubmission(): string {
  const d = deepJson(DEEP);
  return pick([
    d,
    `{"input":${d}}`,
    `{"input":{"a":${d}}}`,
    `{"input":{"fail":${d}}}`,
    `{"input":{"sleep_ms":${d}}}`,
    `{"input":{"stream":2,"chunk_bytes":${d}}}`,
    `{"input":{"output_bytes":${d}}}`,
    `{"input":{"a":${d}},"webhook":"http://127.0.0.1:1/hook"}`,
    `{"input":{},"policy":${d}}`,
    `{"input":{},"policy":{"ttl":${d}}}`,
    `{"input":{},"webhook":${d}}`,
    `{"input":{},"s3Config":${d}}`,
    `{"input":{},"s3Config":{"bucketName":${d}}}`,
    `{${d.startsWith('[') ? `"k":${d}` : `"input":{},"x":${d}`}}`,
  ]);
}

/** A management (POST /v1/endpoints) or admin body: deep, mistyped or out of range. */
function controlBody(): string {
  const d = deepJson(DEEP);
  return pick([
    d,
    `{"templateId":${d}}`,
    `{"templateId":"t","name":${d}}`,
    `{"templateId":"t","gpuTypeIds":${d}}`,
    `{"templateId":"t","workersMax":${d}}`,
    `{"templateId":"t","workersMin":1e9,"workersMax":1e9}`,
    `{"templateId":"t","workersMax":123456789012345678901234567890}`,
    `{"templateId":"t","idleTimeout":-1e308,"executionTimeoutMs":1e400}`,
    `{"templateId":"${'🦄'.repeat(int(100))}","name":"\ud800"}`,
    `{"ms":${d}}`,
    `{"ms":1e400}`,
    `["${'x'.repeat(int(100))}",${d}]`,
    `{"ms":1000`,
  ]);
}

/** Values of the wrong type, huge numbers, odd unicode. */
function oddValue(): string {
  return pick([
    '1e400',
    '-1e400',
    '123456789012345678901234567890',
    '-0',
    '1e-400',
    '9007199254740993',
    '"\ud800"',
    '"\u0000"',
    '"🦄💥\u202e"',
    `"${'é'.repeat(int(500))}"`,
    'true',
    'null',
    '[]',
    '{}',
    '"1000"',
    '0.5',
  ]);
}

function hostileBody(): string | Buffer {
  switch (int(9)) {
    case 0:
    case 1:
    case 2:
      return deepSubmission();
    case 3:
      return `{"input":${pick(['{}', oddValue()])},"policy":{"${pick(['ttl', 'executionTimeout', 'lowPriority', 'x'])}":${oddValue()}}}`;
    case 4:
      return `{"input":{"${pick(['sleep_ms', 'fail', 'stream', 'chunk_bytes', 'output_bytes', '🦄', '__proto__', 'constructor'])}":${oddValue()}}}`;
    case 5:
      return `{"input":{},"${pick(['webhook', 's3Config', 'policy', 'input'])}":${oddValue()}}`;
    case 6:
      // Truncated: a valid submission cut anywhere.
      return deepSubmission().slice(0, int(DEEP * 2));
    case 7:
      // Raw bytes that are not UTF-8, or a byte-order mark before JSON.
      return pick([
        Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
        Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]),
        Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
      ]);
    default:
      return controlBody();
  }
}

function randomBody(): string | Buffer | undefined {
  if (rng.next() < 0.45) return hostileBody();
  switch (int(7)) {
    case 0:
      return undefined;
    case 1:
      return JSON.stringify(randomJson());
    case 2:
      return JSON.stringify({
        input: randomInput(),
        policy: pick([
          undefined,
          { ttl: pick([10_000, 5, 'x']) },
          { executionTimeout: pick([5000, 1, 1e20]) },
          { lowPriority: pick([true, 'yes']) },
        ]),
      });
    case 3:
      return JSON.stringify({ input: randomInput() }).slice(0, int(40));
    case 4:
      return Buffer.from(Array.from({ length: int(200) }, () => int(256)));
    case 5:
      return JSON.stringify({
        input: randomInput(),
        webhook: pick(['http://127.0.0.1:1/hook', 'not a url', 'ftp://x']),
      });
    default:
      return JSON.stringify({ input: randomInput() });
  }
}

function randomPath(): string {
  const query = pick([
    '',
    '',
    '',
    '?wait=1000',
    '?wait=abc',
    '?wait=300000',
    '?ttl=1',
    '?ttl=-5',
    '?ttl=99999999999999999',
    '?&&=',
    '?%',
    `?wait=${String(int(400_000))}`,
    '?jobId=x',
  ]);
  if (rng.next() < 0.6) {
    // Plausible: a real operation, with a job id where it takes one.
    const op = pick([
      'run',
      'run',
      'runsync',
      'status',
      'status',
      'status-sync',
      'stream',
      'cancel',
      'retry',
      'purge-queue',
      'health',
    ]);
    const withId = ['status', 'status-sync', 'stream', 'cancel', 'retry'].includes(op);
    const id = withId
      ? `/${encodeURIComponent(rng.next() < 0.7 ? (ids[int(ids.length)] ?? 'none') : randomString())}`
      : '';
    return `${pick(['/v2/jobstorm', '/v2/jobstorm', '/v2/other', '/v2/qwen3-32b-awq'])}/${op}${id}${query}`;
  }
  const root = pick([
    '/v2/jobstorm',
    '/v2/other',
    '/v2/nope',
    '/v2',
    '/v1',
    '/v1/pods',
    '/v1/endpoints',
    '/_emulator',
    '',
    '/v2/%zz',
  ]);
  const op = pick([
    'run',
    'status',
    'start',
    'jobstorm-pod',
    'state',
    'endpoints/jobstorm',
    'webhooks',
    'clock/advance',
    randomString(),
  ]);
  const id = pick(['', '/', '/a/b/c', '/start', '/jobs/x', `/${encodeURIComponent(randomString())}`]);
  return `${root}/${op}${id}${query}`;
}

function randomHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const auth =
    rng.next() < 0.6
      ? `Bearer ${h.apiKey}`
      : pick([h.apiKey, `bearer   ${h.apiKey}`, 'Bearer', '', 'Basic xyz', `Bearer ${h.apiKey}x`, undefined]);
  if (auth !== undefined) headers.authorization = auth;
  if (rng.next() < 0.5)
    headers['content-type'] = pick(['application/json', 'text/plain', 'multipart/form-data; boundary=x', '']);
  if (rng.next() < 0.1) headers['x-weird'] = 'y'.repeat(int(2000));
  return headers;
}

/** Control-plane writes with hostile bodies: management creation and the admin writes. */
const CONTROL: readonly [string, string][] = [
  ['POST', '/v1/endpoints'],
  ['POST', '/v1/endpoints'],
  ['POST', '/_emulator/clock/advance'],
  ['PUT', '/_emulator/faults'],
  ['PUT', '/_emulator/profile'],
];

interface Planned {
  method: string;
  path: string;
  body: string | Buffer | undefined;
  headers: Record<string, string>;
}

function plan(): Planned | undefined {
  if (rng.next() < 0.12) {
    const [method, path] = pick(CONTROL);
    return {
      method,
      path,
      body: controlBody(),
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
    };
  }
  if (rng.next() < 0.5) {
    // A submission, where bodies are read: most carry the key, so the body is what gets judged.
    const op = pick(['run', 'run', 'runsync']);
    const query =
      op === 'runsync' ? pick(['', '?wait=1000', '?wait=abc', `?wait=${String(int(400_000))}`]) : '';
    const headers =
      rng.next() < 0.9
        ? { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' }
        : randomHeaders();
    return {
      method: 'POST',
      path: `${pick(['/v2/jobstorm', '/v2/jobstorm', '/v2/other', '/v2/qwen3-32b-awq'])}/${op}${query}`,
      body: randomBody(),
      headers: withStall(headers, 0.02),
    };
  }
  const path = randomPath();
  // Valid writes to the fault switches would legitimately produce 5xx (server-errors): those
  // routes get only the hostile bodies above.
  if (path.startsWith('/_emulator/faults') || path.startsWith('/_emulator/profile')) return undefined;
  const method = pick(['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
  const body = method === 'GET' || method === 'HEAD' ? undefined : randomBody();
  return {
    method,
    path,
    body,
    headers: body === undefined ? randomHeaders() : withStall(randomHeaders(), 0.01),
  };
}

/** Now and then a body stalls: it declares more bytes than it sends (408 after the body timeout). */
function withStall(headers: Record<string, string>, chance: number): Record<string, string> {
  return rng.next() < chance ? { ...headers, 'x-stall': '1' } : headers;
}

/** How much of each answer the fuzz client keeps (ids and error texts are in the first bytes). */
const KEEP_BYTES = 1 << 20;

describe('fuzz', () => {
  it(`${String(TOTAL)} hostile requests (seed ${String(SEED)}) never get a 5xx, never crash the emulator, and a normal job still runs`, async () => {
    const url = new URL(h.url);
    // node:http rather than undici: undici refuses (or, with some inputs, stalls on) requests a
    // fuzzer wants to send; node's client sends nearly anything and fails fast on the rest.
    const agent = new HttpAgent({ keepAlive: true, maxSockets: CONCURRENCY });
    const codes = new Map<number, number>();
    const fives: string[] = [];
    let refusedByClient = 0;
    let answered = 0;
    const largest = { bytes: 0, request: '' };
    const one = (): Promise<void> => {
      const p = plan();
      if (p === undefined) return Promise.resolve();
      const { method, path, body, headers } = p;
      return new Promise<void>((resolve) => {
        let req: ClientRequest;
        if (headers['x-stall'] !== undefined && body !== undefined)
          headers['content-length'] = String(Buffer.byteLength(body) + 100);
        try {
          req = httpRequest({
            host: url.hostname,
            port: url.port,
            path,
            method,
            headers,
            agent,
            timeout: 20_000,
          });
        } catch {
          refusedByClient++;
          resolve();
          return;
        }
        req.on('response', (res) => {
          // Only the head of an answer is read into memory (the id of a 200, the text of a 5xx): an
          // answer may legitimately carry 64 MiB of generated output, and the client must not be
          // what runs out of memory. The largest answer is reported.
          const chunks: Buffer[] = [];
          let kept = 0;
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (kept < KEEP_BYTES) {
              chunks.push(c);
              kept += c.length;
            }
          });
          res.on('error', () => undefined);
          res.on('end', () => {
            answered++;
            if (size > largest.bytes)
              Object.assign(largest, { bytes: size, request: `${method} ${path.slice(0, 120)}` });
            const code = res.statusCode ?? 0;
            const text = size > KEEP_BYTES ? '' : Buffer.concat(chunks).toString('utf8');
            codes.set(code, (codes.get(code) ?? 0) + 1);
            if (code >= 500 && fives.length < 10)
              fives.push(
                `${method} ${path.slice(0, 200)} ${String(body).slice(0, 100)} → ${String(code)} ${text.slice(0, 300)}`,
              );
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
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < TOTAL) {
          sent++;
          await one();
        }
      }),
    );
    agent.destroy();
    expect(fives).toEqual([]);
    expect(answered).toBeGreaterThan(TOTAL * 0.9);
    // Memory bounded per answer, whatever faults the admin bodies switched on: the chunk-too-large
    // fault once made a /stream answer of 2 GB (every chunk padded past 1 MiB).
    expect(largest.bytes, `largest answer, to ${largest.request}`).toBeLessThan(96 * 1024 * 1024);
    expect(refusedByClient).toBeLessThan(TOTAL * 0.05);
    // The fuzz reached the real work, not only the refusals.
    const seen = JSON.stringify([...codes].sort((a, b) => a[0] - b[0]));
    expect(codes.get(200) ?? 0, seen).toBeGreaterThan(500);
    for (const code of [400, 401, 404]) expect(codes.get(code) ?? 0, seen).toBeGreaterThan(100);
    // Stalled bodies refused before they are read (auth, path) never reach the timeout; the rest do.
    expect(codes.get(408) ?? 0, seen).toBeGreaterThan(10);

    // Alive, no bug caught in a timer, and a normal job runs from submission to its result.
    const state = await call(h, 'GET', `${h.adminUrl}/state`);
    expect(state.status).toBe(200);
    expect((state.body as { bugs: { count: number } }).bugs.count).toBe(0);
    const input = { sleep_ms: 50, n: 7, text: 'après le fuzz 🦄' };
    const submitted = await call(h, 'POST', `${h.url}/run`, { body: { input } });
    expect(submitted.status).toBe(200);
    const id = (submitted.body as { id: string }).id;
    // Real time: polls the emulator's worker thread while the ticker moves its clock.
    const end = Date.now() + 20_000;
    let last: unknown;
    while (Date.now() < end) {
      const r = await call(h, 'GET', `${h.url}/status/${id}`);
      expect(r.status).toBe(200);
      last = r.body;
      if ((last as { status: string }).status === 'COMPLETED') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(last).toMatchObject({ id, status: 'COMPLETED', output: input });
  }, 240_000);

  it('an endpoint with more workers than the emulator can hold is refused 400, at once', async () => {
    const started = Date.now();
    const r = await call(h, 'POST', `${h.managementUrl}/endpoints`, {
      body: { templateId: 't', workersMin: 1e9, workersMax: 1e9 },
    });
    expect(r.status).toBe(400);
    expect((r.body as { message: string }).message).toMatch(/workersMax must be at most 10000/);
    expect(Date.now() - started).toBeLessThan(5000);
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
        // Real time: a raw socket's answer is read for a moment, then it is closed.
        setTimeout(() => socket.destroy(), 200);
      });
      expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
    }
    expect((await call(h, 'GET', `${h.url}/health`)).status).toBe(200);
  });
});
