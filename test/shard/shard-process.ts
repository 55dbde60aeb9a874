import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
  close(): Promise<void>;
}

/** A pass-through in front of the emulator at `upstream` (its base URL, `…/v2/<endpoint>`). */
export async function startFront(upstream: string): Promise<Front> {
  const up = new URL(upstream);
  const front: Front = {
    url: '',
    bySource: new Map(),
    failSubmitsFrom: undefined,
    close: () => Promise.resolve(),
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    front.bySource.set(from, (front.bySource.get(from) ?? 0) + 1);
    if (from === front.failSubmitsFrom && req.method === 'POST' && req.url?.endsWith('/run')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"injected for one shard"}');
      return;
    }
    const out = request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        // The emulator's keep-alive hint is not this server's: a client trusting it would reuse a
        // connection this server already closed.
        const headers = { ...answer.headers };
        delete headers.connection;
        delete headers['keep-alive'];
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
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
