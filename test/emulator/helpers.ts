import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { expect } from 'vitest';
import type { z } from 'zod';
import { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

/** One agent for all tests: plenty of connections so concurrency tests are not client-bound. */
export const agent = new Agent({ connections: 512, pipelining: 1, keepAliveTimeout: 2000 });

/** Sends one request; `auth: null` sends no Authorization header. */
export async function call(
  h: Pick<EmulatorHandle, 'apiKey'>,
  method: string,
  url: string,
  opts: {
    body?: unknown;
    raw?: string | Buffer;
    auth?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  const auth = opts.auth === undefined ? `Bearer ${h.apiKey}` : opts.auth;
  if (auth !== null) headers.authorization = auth;
  let body: string | Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(url, { method: method as 'GET', headers, body, dispatcher: agent });
  const text = await res.body.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}

/** An emulator on a manual clock, plus shortcuts for its URLs. */
export async function manualEmulator(
  options: EmulatorOptions = {},
): Promise<{ h: EmulatorHandle; clock: ManualClock }> {
  const h = await startEmulator({ clock: 'manual', coldStartMs: 0, ...options });
  if (!(h.clock instanceof ManualClock)) throw new Error('expected a manual clock');
  return { h, clock: h.clock };
}

/** Asserts the body satisfies the contract's schema and returns it typed. */
export function valid<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (!r.success)
    throw new Error(
      `response does not match the contract: ${JSON.stringify(r.error.issues)}\nbody: ${JSON.stringify(body).slice(0, 500)}`,
    );
  return r.data;
}

export function expectStatus(r: Reply, status: number): void {
  expect(r.status, `HTTP ${String(r.status)}: ${r.text.slice(0, 300)}`).toBe(status);
}

export async function submit(
  h: EmulatorHandle,
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const r = await call(h, 'POST', `${h.url}/run`, { body: { input, ...extra } });
  expectStatus(r, 200);
  return (r.body as { id: string }).id;
}

export async function status(h: EmulatorHandle, id: string): Promise<Reply> {
  return call(h, 'GET', `${h.url}/status/${id}`);
}

/** Waits (briefly, in wall time) until `cond` holds; for effects that cross a socket. */
// Real time: polls effects that cross a real socket (a worker, a webhook receiver).
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface Receiver {
  url: string;
  hits: { at: number; body: unknown }[];
  answer: number;
  close(): Promise<void>;
}

/** A loopback webhook receiver answering `answer`; records each hit with the given clock's time. */
export async function webhookReceiver(now: () => number, answer = 200): Promise<Receiver> {
  const hits: { at: number; body: unknown }[] = [];
  const state = { answer };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ at: now(), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      res.writeHead(state.answer).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${String(port)}/hook`,
    hits,
    get answer() {
      return state.answer;
    },
    set answer(v: number) {
      state.answer = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Webhook attempts still awaiting their answer, read from the admin API. */
export async function webhooksPending(h: EmulatorHandle): Promise<number> {
  const r = await call(h, 'GET', `${h.adminUrl}/webhooks`);
  return (r.body as { pending: number }).pending;
}

/**
 * POSTs a streamed /openai/* request, moves the manual clock until the answer is over (the job
 * starts, its tokens come, it ends), and returns the data of each event in order.
 */
export async function openAiEvents(
  h: Pick<EmulatorHandle, 'apiKey'>,
  clock: ManualClock,
  url: string,
  body: unknown,
): Promise<string[]> {
  const res = await request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  clock.advance(0);
  clock.advance(60_000);
  const text = await res.body.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
}

/**
 * Whether the emulator will send no more webhooks: no attempt awaits its answer and no delivery waits
 * for a retry. Attempts start inside the clock's callbacks, so right after a manual clock's advance
 * this is exact: a proof of absence that waits no real time.
 */
export async function webhooksDone(h: EmulatorHandle): Promise<boolean> {
  const r = await call(h, 'GET', `${h.adminUrl}/webhooks`);
  const b = r.body as { pending: number; deliveries: { state: string }[] };
  return b.pending === 0 && b.deliveries.every((d) => d.state === 'delivered' || d.state === 'failed');
}
