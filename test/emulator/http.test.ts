import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import {
  ErrorBodySchema,
  HealthResponseSchema,
  RunResponseSchema,
  RunsyncResponseSchema,
} from '../../contracts/queue/schemas.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus, valid } from './helpers.js';

let h: EmulatorHandle;
beforeAll(async () => {
  h = await startEmulator({ apiKey: 'k-123', workersMax: 4 });
});
afterAll(async () => {
  await h.close();
});

function bodyOfSize(bytes: number): string {
  const shell = '{"input":{"blob":""}}';
  return `{"input":{"blob":"${'x'.repeat(bytes - shell.length)}"}}`;
}

describe('authentication (SPEC "Authentication")', () => {
  it('accepts "Bearer KEY" and the bare key; 401 with a JSON body when missing or wrong', async () => {
    expectStatus(await call(h, 'GET', `${h.url}/health`, { auth: 'Bearer k-123' }), 200);
    expectStatus(await call(h, 'GET', `${h.url}/health`, { auth: 'k-123' }), 200);
    expectStatus(await call(h, 'GET', `${h.url}/health`, { auth: 'bearer k-123' }), 200);
    for (const auth of [null, 'wrong', 'Bearer wrong', 'Bearer ', 'k-1234']) {
      const r = await call(h, 'GET', `${h.url}/health`, { auth });
      expectStatus(r, 401);
      valid(ErrorBodySchema, r.body);
    }
  });

  it('checks the key before anything else: unknown endpoints and bad bodies still answer 401', async () => {
    expectStatus(await call(h, 'GET', `${h.url.replace(/jobstorm$/, 'nope')}/health`, { auth: null }), 401);
    expectStatus(await call(h, 'POST', `${h.url}/run`, { raw: '{bad', auth: 'x' }), 401);
    const m = await call(h, 'POST', `${h.managementUrl}/pods/jobstorm-pod/start`, { auth: null });
    expectStatus(m, 401);
    expect(m.body).toMatchObject({ message: expect.any(String) as string });
  });
});

describe('errors are JSON and name what is wrong', () => {
  const cases: [string, string, string, number, RegExp][] = [
    ['malformed JSON', '/run', '{"input": {', 400, /not valid JSON/],
    ['empty body', '/run', '', 400, /empty/],
    ['input missing', '/run', '{}', 400, /input/],
    ['input not an object', '/run', '{"input":[1]}', 400, /input/],
    ['unknown field', '/run', '{"input":{},"extra":1}', 400, /extra/],
    ['ttl too small', '/run', '{"input":{},"policy":{"ttl":9999}}', 400, /policy\.ttl/],
    [
      'ttl too large',
      '/run',
      `{"input":{},"policy":{"ttl":${String(LIMITS.ttl.max + 1)}}}`,
      400,
      /policy\.ttl/,
    ],
    [
      'executionTimeout too small',
      '/run',
      '{"input":{},"policy":{"executionTimeout":4999}}',
      400,
      /policy\.executionTimeout/,
    ],
    ['webhook not a URL', '/run', '{"input":{},"webhook":"nope"}', 400, /webhook/],
    ['wait below range', '/runsync?wait=999', '{"input":{}}', 400, /wait/],
    ['wait above range', '/runsync?wait=300001', '{"input":{}}', 400, /wait/],
    ['wait not an integer', '/runsync?wait=1.5', '{"input":{}}', 400, /wait/],
  ];
  for (const [name, path, raw, code, message] of cases) {
    it(`${name} → ${String(code)}`, async () => {
      const r = await call(h, 'POST', `${h.url}${path}`, {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expectStatus(r, code);
      expect(valid(ErrorBodySchema, r.body).error).toMatch(message);
    });
  }

  it('edges of the policy ranges are accepted', async () => {
    for (const policy of [
      { ttl: LIMITS.ttl.min },
      { ttl: LIMITS.ttl.max },
      { executionTimeout: LIMITS.executionTimeout.min },
      { executionTimeout: LIMITS.executionTimeout.max },
    ]) {
      const r = await call(h, 'POST', `${h.url}/run`, { body: { input: {}, policy } });
      expectStatus(r, 200);
      valid(RunResponseSchema, r.body);
    }
  });

  it('status?ttl out of range → 400; unknown job → 404; unknown endpoint → 404; unknown operation → 404', async () => {
    expect((await call(h, 'GET', `${h.url}/status/x?ttl=0`)).status).toBe(400);
    const unknownJob = await call(h, 'GET', `${h.url}/status/does-not-exist`);
    expectStatus(unknownJob, 404);
    expect(valid(ErrorBodySchema, unknownJob.body).error).toMatch(/does-not-exist/);
    const unknownEp = await call(h, 'GET', `${h.url.replace(/jobstorm$/, 'nope')}/health`);
    expectStatus(unknownEp, 404);
    expect(valid(ErrorBodySchema, unknownEp.body).error).toMatch(/nope/);
    expectStatus(await call(h, 'GET', `${h.url}/run`), 404);
    expectStatus(await call(h, 'POST', `${h.url}/teleport`), 404);
    expectStatus(await call(h, 'GET', `${h.url}/status`), 404);
  });
});

describe('payload limits (SPEC "Limits"), detected while the body streams in', () => {
  it('an 11 MB /run is rejected (413) and a 9.9 MB one accepted', async () => {
    const over = await call(h, 'POST', `${h.url}/run`, {
      raw: bodyOfSize(11_000_000),
      headers: { 'content-type': 'application/json' },
    });
    expectStatus(over, 413);
    expect(valid(ErrorBodySchema, over.body).error).toMatch(/\/run limit/);
    const under = await call(h, 'POST', `${h.url}/run`, {
      raw: bodyOfSize(9_900_000),
      headers: { 'content-type': 'application/json' },
    });
    expectStatus(under, 200);
    valid(RunResponseSchema, under.body);
  });

  it('/runsync takes 19.9 MB and refuses 21 MB', async () => {
    const under = await call(h, 'POST', `${h.url}/runsync`, {
      raw: bodyOfSize(19_900_000),
      headers: { 'content-type': 'application/json' },
    });
    expectStatus(under, 200);
    expect(valid(RunsyncResponseSchema, under.body).status).toBe('COMPLETED');
    expectStatus(await call(h, 'POST', `${h.url}/runsync`, { raw: bodyOfSize(21_000_000) }), 413);
  });

  it('a chunked upload is refused once it passes the limit, before the client has sent the rest', async () => {
    const url = new URL(`${h.url}/run`);
    const mib = Buffer.alloc(1024 * 1024, 'x');
    const answer = await new Promise<{ status: number; sentMiB: number }>((resolve, reject) => {
      let sent = 0;
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: 'k-123', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        resolve({ status: res.statusCode ?? 0, sentMiB: sent });
        res.resume();
        req.destroy();
      });
      req.on('error', (err) => {
        if (sent < 11) reject(err);
      });
      req.write('{"input":{"blob":"');
      // 11 MiB, then hold the request open: only an early answer can resolve the promise.
      const pump = (): void => {
        while (sent < 11) {
          sent++;
          if (!req.write(mib)) {
            req.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(answer.sentMiB).toBeLessThanOrEqual(11);
  });

  it('a declared Content-Length over the limit is refused without reading the body', async () => {
    const url = new URL(`${h.url}/runsync`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: 'k-123', 'content-length': String(LIMITS.runsyncPayload.surelyRejected) },
      });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        req.destroy();
      });
      req.on('error', reject);
      req.write('{"input":');
    });
    expect(status).toBe(413);
  });
});

describe('public models', () => {
  it('POST /v2/<model>/runsync runs a job; other operations of a model are 404', async () => {
    const model = h.url.replace(/jobstorm$/, 'qwen3-32b-awq');
    const r = await call(h, 'POST', `${model}/runsync`, { body: { input: { prompt: 'hello' } } });
    expectStatus(r, 200);
    expect(valid(RunsyncResponseSchema, r.body)).toMatchObject({
      status: 'COMPLETED',
      output: { prompt: 'hello' },
    });
    expectStatus(await call(h, 'POST', `${model}/run`, { body: { input: {} } }), 404);
    expectStatus(await call(h, 'GET', `${model}/health`), 404);
  });

  it('health of the account endpoint still validates after all of the above', async () => {
    const r = await call(h, 'GET', `${h.url}/health`);
    valid(HealthResponseSchema, r.body);
  });
});
