import { spawn, type ChildProcess } from 'node:child_process';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request as undiciRequest } from 'undici';
import type { Summary } from '../../src/report/summary.js';

/*
 * Shard processes of the built CLI, and a front for the emulator that counts requests by source
 * address (each shard leaves from its own loopback address) and can fail one address's submits.
 */

const root = new URL('../../', import.meta.url).pathname;
export const bin = join(root, 'dist/cli/main.js');

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  /** performance.now() when the process ended. */
  endedAt: number;
}

export interface Shard {
  child: ChildProcess;
  exit: Promise<Exit>;
  stderr(): string;
}

export function jobstorm(args: readonly string[]): Shard {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, JOBSTORM_API_KEY: '', GITHUB_STEP_SUMMARY: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exit = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    // Real time: when the built CLI's process ended.
    child.once('close', (code) => resolve({ code, stdout, stderr, endedAt: performance.now() }));
  });
  return { child, exit, stderr: () => stderr };
}

export async function summaryOf(dir: string): Promise<Summary> {
  return JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as Summary;
}

// Real time: for waits on shard processes of the built CLI.
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface Front {
  url: string;
  /** Requests seen per source address. */
  bySource: Map<string, number>;
  /** Submits (`POST …/run`) from this address are answered 500. */
  failSubmitsFrom: string | undefined;
  /** Called with each request's source address as it comes (a test acting on a shard's load). */
  onRequest?: (from: string) => void;
  close(): Promise<void>;
}

/**
 * Hop-by-hop headers, each connection's own (undici refuses them in a request). The emulator's
 * keep-alive hint is not this server's: a client trusting it would reuse a connection this server
 * already closed.
 */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP.has(name)) kept[name] = value;
  return kept;
}

/**
 * A pass-through in front of the emulator at `upstream` (its base URL, `…/v2/<endpoint>`). It
 * forwards with undici, as jobstorm's client sends, so a ClockDriver sees each leg of an exchange
 * (issue 46: shards in-process on a manual clock), and reads each body whole (they are small JSON).
 */
export async function startFront(upstream: string): Promise<Front> {
  const up = new URL(upstream);
  const front: Front = {
    url: '',
    bySource: new Map(),
    failSubmitsFrom: undefined,
    close: () => Promise.resolve(),
  };
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const answer = await undiciRequest(new URL(req.url ?? '/', up.origin), {
      method: req.method ?? 'GET',
      headers: endToEnd(req.headers),
      ...(body.length > 0 ? { body } : {}),
    });
    const text = Buffer.from(await answer.body.arrayBuffer());
    res
      .writeHead(answer.statusCode, { ...endToEnd(answer.headers), 'content-length': text.length })
      .end(text);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    front.bySource.set(from, (front.bySource.get(from) ?? 0) + 1);
    front.onRequest?.(from);
    if (from === front.failSubmitsFrom && req.method === 'POST' && req.url?.endsWith('/run')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"injected for one shard"}');
      return;
    }
    forward(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  };
  const server: Server = createServer({ keepAliveTimeout: 60_000 }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  front.url = `http://127.0.0.1:${String(port)}${up.pathname}`;
  front.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return front;
}
