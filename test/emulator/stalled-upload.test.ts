import { connect, type Socket } from 'node:net';
import { describe, expect, it, vi, type TestContext } from 'vitest';
import { RATE_LIMITS } from '../../contracts/queue/rate-limits.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { call, expectStatus } from './helpers.js';

/*
 * Uploads that send their headers and part of the body, then nothing, used to hold /run's
 * concurrency slots until node's 300 s request timeout: /run answered 429 meanwhile. A body now
 * takes its slot only once it is complete, and one that sends nothing for bodyTimeoutMs is
 * answered 408 and its connection closed.
 */

// Real time: the body timeout is the socket's (bytes arrive on real time, not on a run's clock), so
// these cases wait for it for real: short enough to be cheap, long enough that 250 connections are
// in before the first of them times out on a loaded machine.
const BODY_TIMEOUT_MS = 3000;
const STALLED = 250;

/** An emulator of the case's own: the cases run side by side, and each reads its own rate limits. */
async function emulator(ctx: TestContext): Promise<EmulatorHandle> {
  const h = await startEmulator({ bodyTimeoutMs: BODY_TIMEOUT_MS, coldStartMs: 0 });
  // The case's own hook: side by side, a hook imported from vitest may land on another case.
  ctx.onTestFinished(() => h.close());
  return h;
}

interface Stalled {
  socket: Socket;
  answer: string;
  /** When its headers went out: the emulator's body timer cannot start before. */
  sentAt: number;
  closedAt: number | undefined;
}

function stall(h: EmulatorHandle, port: number, path: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const s: Stalled = {
      socket: connect(port, '127.0.0.1'),
      answer: '',
      sentAt: 0,
      closedAt: undefined,
    };
    s.socket.on('data', (d: Buffer) => {
      s.answer += d.toString('latin1');
    });
    s.socket.on('error', () => undefined);
    s.socket.on('close', () => {
      // Real time: the emulator's body timeout closes a real socket on real time.
      s.closedAt = Date.now();
    });
    s.socket.once('connect', () => {
      s.sentAt = Date.now();
      s.socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"input":{"pad":"`,
      );
      resolve(s);
    });
    s.socket.once('error', reject);
  });
}

describe.concurrent('stalled uploads', () => {
  it(`${String(STALLED)} stalled /run uploads hold no concurrency slot; each gets 408 and is closed after the body timeout`, async (ctx) => {
    const h = await emulator(ctx);
    const cap = RATE_LIMITS.run?.concurrent ?? 0;
    expect(STALLED).toBeGreaterThan(cap);
    const url = new URL(h.url);
    const stalled = await Promise.all(
      Array.from({ length: STALLED }, () => stall(h, Number(url.port), `${url.pathname}/run`)),
    );
    // Real time: the emulator's body timeout closes real sockets on real time.
    const startedAt = Date.now();
    // Every stalled upload has reached the route (the request handler runs on headers): the rate
    // window admits each there, so its count says so, instead of 100 ms that a loaded machine may not
    // fit them into (the proof would then pass without its uploads).
    await vi.waitFor(
      async () => {
        const s = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
        const limits = (s.body as { rateLimits: Record<string, { inWindow: number }> }).rateLimits;
        expect(limits.run?.inWindow).toBeGreaterThanOrEqual(STALLED);
      },
      { timeout: 10_000, interval: 20 },
    );
    const r = await call(h, 'POST', `${h.url}/run`, { body: { input: {} } });
    expectStatus(r, 200);
    // Answered while every stalled upload was still open: no slot was freed by a timeout.
    expect(stalled.filter((s) => s.closedAt !== undefined)).toHaveLength(0);
    const snapshot = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(
      (snapshot.body as { rateLimits: Record<string, { inFlight: number }> }).rateLimits.run?.inFlight,
    ).toBe(0);
    const deadline = startedAt + BODY_TIMEOUT_MS + 10_000;
    while (stalled.some((s) => s.closedAt === undefined) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 50));
    for (const s of stalled) {
      expect(s.closedAt, 'the stalled socket was closed').toBeDefined();
      // Not before the body timeout: counted from when this upload's headers went out (a timer may
      // fire a millisecond early), not from when the last of the 250 connected.
      expect((s.closedAt ?? 0) - s.sentAt).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 5);
      expect(s.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(s.answer).toContain(`"error":"request body stalled: no bytes for ${String(BODY_TIMEOUT_MS)} ms`);
    }
    expectStatus(await call(h, 'POST', `${h.url}/run`, { body: { input: {} } }), 200);
  }, 30_000);

  it('a slow body that keeps sending is not cut, and its job is accepted', async (ctx) => {
    const h = await emulator(ctx);
    const url = new URL(h.url);
    const body = '{"input":{"pad":"' + 'y'.repeat(40) + '"}}';
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `POST ${url.pathname}/run HTTP/1.1\r\nHost: x\r\nAuthorization: ${h.apiKey}\r\nContent-Length: ${String(body.length)}\r\n\r\n`,
    );
    // Four pieces, each well inside the stall timeout, together past it.
    const pieces = 4;
    const step = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      socket.write(body.slice(i * step, (i + 1) * step));
      // Real time: a real socket's body trickles in under the body timeout.
      await new Promise((r) => setTimeout(r, BODY_TIMEOUT_MS / 3.5));
    }
    // Real time: waits for an answer on a real socket.
    const end = Date.now() + 5000;
    while (!answer.includes('\r\n\r\n{') && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/"status":"IN_QUEUE"/);
  }, 20_000);

  it('a waiting /runsync still holds its concurrency slot once its body is in', async (ctx) => {
    const h = await emulator(ctx);
    const snapshot = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
    expect(
      (snapshot.body as { rateLimits: Record<string, { inFlight: number }> }).rateLimits.runsync?.inFlight,
    ).toBe(0);
    const waiting = call(h, 'POST', `${h.url}/runsync?wait=1000`, { body: { input: { sleep_ms: 5000 } } });
    // Real time: waits for an answer on a real socket.
    const end = Date.now() + 5000;
    let inFlight = 0;
    while (inFlight === 0 && Date.now() < end) {
      const s = await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`);
      inFlight =
        (s.body as { rateLimits: Record<string, { inFlight: number }> }).rateLimits.runsync?.inFlight ?? 0;
    }
    expect(inFlight).toBe(1);
    expectStatus(await waiting, 200);
  }, 20_000);
});
