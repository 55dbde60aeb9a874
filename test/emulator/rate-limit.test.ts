import autocannon from 'autocannon';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../contracts/queue/rate-limits.js';
import { ErrorBodySchema } from '../../contracts/queue/schemas.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus, manualEmulator, until, valid } from './helpers.js';

let open: EmulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.close()));
  open = [];
});

const RUN_LIMIT = RATE_LIMITS.run?.perWindow ?? 0;

/** Sends `n` requests over `connections` keep-alive connections at once; returns their status codes. */
async function burst(
  h: EmulatorHandle,
  path: string,
  method: 'GET' | 'POST',
  n: number,
  connections: number,
  body?: string,
): Promise<number[]> {
  const origin = new URL(h.url).origin;
  const pool = new Pool(origin, { connections });
  try {
    const codes = await Promise.all(
      Array.from({ length: n }, async () => {
        const res = await pool.request({
          path,
          method,
          headers: { authorization: h.apiKey, 'content-type': 'application/json' },
          body,
        });
        await res.body.dump();
        return res.statusCode;
      }),
    );
    return codes;
  } finally {
    await pool.close();
  }
}

describe('rate limits (SPEC "Limits"), at the spec\'s own numbers', () => {
  it('the 1000th /run in a window is accepted and the 1001st gets 429 with a truthful Retry-After (manual clock)', async () => {
    const { h, clock } = await manualEmulator();
    open.push(h);
    const path = `${new URL(h.url).pathname}/run`;
    const codes = await burst(h, path, 'POST', RUN_LIMIT, 100, '{"input":{}}');
    expect(codes.filter((c) => c === 200)).toHaveLength(RUN_LIMIT);
    const refused = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
    expectStatus(refused, 429);
    expect(valid(ErrorBodySchema, refused.body).error).toMatch(/rate limit/);
    expect(refused.headers['retry-after']).toBe('10');
    clock.advance(9999);
    const stillRefused = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
    expectStatus(stillRefused, 429);
    expect(stillRefused.headers['retry-after']).toBe('1');
    clock.advance(1);
    expectStatus(await call(h, 'POST', `${h.url}/run`, { body: { input: {} } }), 200);
  });

  it('Retry-After says when the sliding window admits again', async () => {
    const { h, clock } = await manualEmulator();
    open.push(h);
    const path = `${new URL(h.url).pathname}/run`;
    await burst(h, path, 'POST', RUN_LIMIT / 2, 50, '{"input":{}}');
    clock.advance(4000);
    await burst(h, path, 'POST', RUN_LIMIT / 2, 50, '{"input":{}}');
    const refused = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
    expectStatus(refused, 429);
    expect(refused.headers['retry-after']).toBe('6');
    clock.advance(6000);
    const codes = await burst(h, path, 'POST', RUN_LIMIT / 2, 50, '{"input":{}}');
    expect(codes.every((c) => c === 200)).toBe(true);
    expectStatus(await call(h, 'POST', `${h.url}/run`, { body: { input: {} } }), 429);
  });

  it('driven by autocannon on the real clock: 1000 /run accepted, the next one refused', async () => {
    const h = await startEmulator({ workersMax: 20 });
    open.push(h);
    const result = await autocannon({
      url: `${h.url}/run`,
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
      body: '{"input":{"n":1}}',
      amount: RUN_LIMIT,
      connections: 50,
    });
    expect(result['2xx']).toBe(RUN_LIMIT);
    expect(result.non2xx).toBe(0);
    const refused = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
    expectStatus(refused, 429);
    const after = Number(refused.headers['retry-after']);
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(10);
  });

  it('the concurrency cap: the 401st /runsync in flight gets 429', async () => {
    const { h, clock } = await manualEmulator({ workersMax: 1 });
    open.push(h);
    const cap = RATE_LIMITS.runsync?.concurrent ?? 0;
    const path = `${new URL(h.url).pathname}/runsync`;
    const waiting = burst(h, path, 'POST', cap, cap, '{"input":{"sleep_ms":1000}}');
    await until(
      async () => {
        const r = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
        return (
          (r.body as { rateLimits: Record<string, { inFlight: number }> }).rateLimits.runsync?.inFlight ===
          cap
        );
      },
      `${String(cap)} runsync in flight`,
    );
    const refused = await call(h, 'POST', `${h.url}/runsync`, { body: { input: {} } });
    expectStatus(refused, 429);
    expect(valid(ErrorBodySchema, refused.body).error).toMatch(/concurrent/);
    expect(refused.headers['retry-after']).toBeDefined();
    clock.advance(90_000);
    const codes = await waiting;
    expect(codes.every((c) => c === 200)).toBe(true);
    const after = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(
      (after.body as { rateLimits: Record<string, { inFlight: number }> }).rateLimits.runsync?.inFlight,
    ).toBe(0);
  });

  it('the dynamic rule: running workers × requestsPerWorker raises the limit above the base', async () => {
    const base = RATE_LIMITS.cancel?.perWindow ?? 0;
    for (const [requestsPerWorker, expected] of [
      [0, base],
      [10, 20 * 10],
    ] as const) {
      const { h, clock } = await manualEmulator({ workersMin: 20, workersMax: 20, requestsPerWorker });
      open.push(h);
      for (let i = 0; i < 20; i++)
        expectStatus(await call(h, 'POST', `${h.url}/run`, { body: { input: { sleep_ms: 60_000 } } }), 200);
      clock.advance(1);
      const path = `${new URL(h.url).pathname}/cancel/unknown-job`;
      const codes = await burst(h, path, 'POST', expected, 10);
      expect(codes.filter((c) => c === 429)).toHaveLength(0);
      expectStatus(await call(h, 'POST', `${h.url}/cancel/unknown-job`), 429);
    }
  });
});
