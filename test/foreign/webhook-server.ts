import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../../src/core/clock.js';

/**
 * A small job server that is NOT our emulator, for webhooks: /run, /runsync, /status and /health
 * under /v2/ep, any key accepted. A job finishes `jobMs` after submission (FAILED when its input
 * says `fail`), and its webhook is then posted.
 */
export interface WebhookServerOptions {
  /**
   * The delivery carries only what the handler returned (`{output}` or `{error}`), no id and no
   * status, as the vendor's local test server posts it (real-service.md: "webhook body differs
   * locally (#409)"); otherwise the /status body plus input and webhook, as the service does.
   */
  silentBody?: boolean;
  /** Each webhook is posted this many times, 100 ms apart, whatever the receiver answers (default 1). */
  deliveries?: number;
  jobMs?: number;
  /**
   * The clock its jobs age by and its deliveries wait on: the system's by default (a real server),
   * a test's manual one when the run against it shares that clock (issue 46), so a run's seconds
   * of jobs and webhooks pass as fast as loopback answers.
   */
  clock?: Clock;
}

interface Job {
  id: string;
  createdAt: number;
  input: Record<string, unknown>;
  webhook?: string;
}

export interface WebhookServer {
  base: string;
  /** Deliveries posted so far. */
  posted: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startWebhookServer(o: WebhookServerOptions = {}): Promise<WebhookServer> {
  const jobMs = o.jobMs ?? 100;
  const jobs = new Map<string, Job>();
  const timers = new Set<() => void>();
  // Real time: without a clock given, a real loopback server for runs on the system clock; its jobs
  // age, and its webhooks wait, by the wall clock.
  const clock = o.clock ?? systemClock;
  const state = { posted: 0, n: 0 };
  const finalView = (j: Job): Record<string, unknown> =>
    j.input.fail === true
      ? { id: j.id, status: 'FAILED', delayTime: 1, executionTime: jobMs, error: 'handler failed' }
      : { id: j.id, status: 'COMPLETED', delayTime: 1, executionTime: jobMs, output: { ok: true } };
  const view = (j: Job): Record<string, unknown> =>
    clock.now() - j.createdAt >= jobMs ? finalView(j) : { id: j.id, status: 'IN_PROGRESS', delayTime: 1 };
  const notify = (j: Job): void => {
    const full = finalView(j);
    const body = o.silentBody
      ? j.input.fail === true
        ? { error: full.error }
        : { output: full.output }
      : { ...full, input: j.input, webhook: j.webhook };
    for (let i = 0; i < (o.deliveries ?? 1); i++) {
      const cancel = clock.schedule(jobMs + i * 100, () => {
        timers.delete(cancel);
        state.posted++;
        void fetch(j.webhook ?? '', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).catch(() => undefined);
      });
      timers.add(cancel);
    }
  };
  const submit = (text: string): Job | undefined => {
    try {
      const b = JSON.parse(text) as { input?: Record<string, unknown>; webhook?: string };
      if (typeof b.input !== 'object') return undefined;
      const job: Job = { id: `wh-${String(++state.n)}`, createdAt: clock.now(), input: b.input };
      if (b.webhook !== undefined) job.webhook = b.webhook;
      jobs.set(job.id, job);
      if (job.webhook !== undefined) notify(job);
      return job;
    } catch {
      return undefined;
    }
  };
  const handle = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    const parts = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
    if (parts[0] !== 'v2' || parts[1] !== 'ep') return send(res, 404, { error: 'no such endpoint' });
    const [op = '', id = ''] = parts.slice(2);
    if (op === 'health')
      return send(res, 200, {
        jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
        workers: { idle: 1, running: 0 },
      });
    if ((op === 'run' || op === 'runsync') && req.method === 'POST') {
      const job = submit(text);
      if (!job) return send(res, 400, { error: 'input must be an object' });
      return send(res, 200, op === 'run' ? { id: job.id, status: 'IN_QUEUE' } : view(job));
    }
    const job = jobs.get(id);
    if (op === 'status' && req.method === 'GET')
      return job ? send(res, 200, view(job)) : send(res, 404, { error: 'job not found' });
    send(res, 404, { error: 'not found' });
  };
  const server = createServer((req, res) => {
    void readText(req).then((text) => handle(req, res, text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${String(port)}/v2/ep`,
    get posted() {
      return state.posted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const cancel of timers) cancel();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
