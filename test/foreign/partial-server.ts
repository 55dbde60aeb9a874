import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../../src/core/clock.js';

/**
 * A small job server that is NOT our emulator: it behaves the way partial, older or local
 * implementations of the API do, one switch per difference. Jobs finish `jobMs` after submission.
 */
export interface PartialOptions {
  /** Operations answered 404 {"detail":"Not Found"} (the route does not exist). */
  missing?: string[];
  /** Operations served only to POST: GET answers 405 with `Allow: POST`. */
  postOnly?: string[];
  /** Operations served only to POST, and GET answered 404 "Cannot GET" (as Express answers). */
  postOnly404?: string[];
  /** /status of an unknown job answers 200 {"status":"FAILED"} instead of 404. */
  unknownJobFound?: boolean;
  /** A submission without `input` is accepted. */
  inputOptional?: boolean;
  /** Operations at the root (/run) instead of under /v2/<endpointId>. */
  root?: boolean;
  /** The endpoint id served under /v2/ (another id answers 404). */
  endpointId?: string;
  /** Required key (bearer or bare); none: no authentication at all. */
  apiKey?: string;
  /** The status /run answers with (the contract says IN_QUEUE). */
  runStatus?: string;
  /** /runsync ignores ?wait and answers at once with the job still running. */
  ignoreWait?: boolean;
  jobMs?: number;
  /**
   * Every Nth /status request has its connection destroyed without an answer, as an overloaded
   * proxy or a worker process that crashes under load does.
   */
  resetEvery?: number;
  /**
   * A cold start, as an endpoint scaled to zero has: for `ms` after its first request every answer
   * is `delayMs` late, and /run answers with `runStatus` when given (a status the contract lacks).
   */
  cold?: { ms: number; delayMs: number; runStatus?: string };
  /**
   * A stall: requests that arrive from `fromMs` to `untilMs` after the first one are all handled
   * at `untilMs`, as a server that stopped reading its sockets for a while does.
   */
  stall?: { fromMs: number; untilMs: number };
  /**
   * /run limited to `perWindow` accepted requests in any 10 s, counted when a request is handled
   * (read), not when it was sent; past it, 429 with Retry-After: 1.
   */
  runLimit?: number;
  /** A job is IN_QUEUE for this long after submission, then IN_PROGRESS until `jobMs` (default 0). */
  queueMs?: number;
  /**
   * A finished job's result is dropped once it was read: after the first answer that shows the job
   * final (/runsync, /status, /stream), every request about it answers 404.
   */
  dropAfterRead?: boolean;
  /**
   * /cancel finds only jobs still in the queue: a running job's cancel answers 404 "job not found",
   * and the job goes on (its /status still shows it).
   */
  cancelQueuedOnly?: boolean;
  /**
   * The clock its jobs age by and its late answers wait on: the system's by default (a real server),
   * a test's manual one when the run against it shares that clock (issue 46), so its cold spells,
   * stalls and windows pass as fast as loopback answers.
   */
  clock?: Clock;
}

interface Job {
  id: string;
  createdAt: number;
  cancelled: boolean;
  /** Its final state was shown once (dropAfterRead). */
  read?: boolean;
}

export interface PartialServer {
  url: string;
  /** The base URL a run targets: origin for `root`, else origin + /v2/<id>. */
  base: string;
  requests: number;
  close(): Promise<void>;
}

export async function startPartialServer(o: PartialOptions = {}): Promise<PartialServer> {
  const jobs = new Map<string, Job>();
  const jobMs = o.jobMs ?? 50;
  let n = 0;
  let statusReads = 0;
  /** Handling times of the /run requests accepted in the last 10 s (runLimit). */
  const runsAccepted: number[] = [];
  const state = { requests: 0 };
  // Real time: without a clock given, a real loopback server for runs on the system clock; its jobs
  // age, and its late answers wait, by the wall clock.
  const clock = o.clock ?? systemClock;
  const statusOf = (j: Job): string => {
    const age = clock.now() - j.createdAt;
    if (j.cancelled) return 'CANCELLED';
    return age >= jobMs ? 'COMPLETED' : age < (o.queueMs ?? 0) ? 'IN_QUEUE' : 'IN_PROGRESS';
  };
  const view = (j: Job): Record<string, unknown> => {
    const status = statusOf(j);
    if (o.dropAfterRead && (status === 'COMPLETED' || status === 'CANCELLED')) j.read = true;
    return {
      id: j.id,
      status,
      delayTime: 1,
      executionTime: status === 'COMPLETED' ? jobMs : 0,
      ...(status === 'COMPLETED' ? { output: { ok: true } } : {}),
    };
  };
  const send = (
    res: ServerResponse,
    code: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    const text = JSON.stringify(body);
    res
      .writeHead(code, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...headers,
      })
      .end(text);
  };
  let firstAt: number | undefined;
  const isCold = (): boolean => o.cold !== undefined && clock.now() - (firstAt ?? clock.now()) < o.cold.ms;
  const handle = (req: IncomingMessage, res: ServerResponse, body: string, cold: boolean): void => {
    state.requests++;
    const url = new URL(req.url ?? '/', 'http://x');
    let parts = url.pathname.split('/').filter(Boolean);
    if (!o.root) {
      if (parts[0] !== 'v2' || parts[1] !== (o.endpointId ?? 'ep'))
        return send(res, 404, { detail: 'Not Found' });
      parts = parts.slice(2);
    }
    const [op = '', id] = parts;
    if (o.apiKey !== undefined) {
      const auth = req.headers.authorization;
      if (auth !== o.apiKey && auth !== `Bearer ${o.apiKey}`)
        return send(res, 401, { error: 'unauthorized' });
    }
    if (o.missing?.includes(op)) return send(res, 404, { detail: 'Not Found' });
    if (o.postOnly?.includes(op) && req.method !== 'POST')
      return send(res, 405, { detail: 'Method Not Allowed' }, { allow: 'POST' });
    if (o.postOnly404?.includes(op) && req.method !== 'POST')
      return send(res, 404, { error: `Cannot ${req.method ?? ''} ${url.pathname}` });
    const known = id === undefined ? undefined : jobs.get(id);
    const job = known?.read ? undefined : known;
    if (op === 'run' && o.runLimit !== undefined) {
      const now = clock.now();
      while ((runsAccepted[0] ?? now) <= now - 10_000) runsAccepted.shift();
      if (runsAccepted.length >= o.runLimit)
        return send(res, 429, { error: 'rate limited' }, { 'retry-after': '1' });
      runsAccepted.push(now);
    }
    switch (op) {
      case 'run':
      case 'runsync': {
        let input: unknown;
        try {
          input = (JSON.parse(body) as { input?: unknown }).input;
          if (input === undefined && o.inputOptional) input = {};
        } catch {
          return send(res, 400, { error: 'malformed JSON' });
        }
        if (typeof input !== 'object' || input === null)
          return send(res, 400, { error: 'input is required' });
        const j: Job = {
          id: `${op === 'runsync' ? 'sync-' : ''}job-${String(++n)}`,
          createdAt: clock.now(),
          cancelled: false,
        };
        jobs.set(j.id, j);
        if (op === 'run')
          return send(res, 200, {
            id: j.id,
            status: (cold ? o.cold?.runStatus : undefined) ?? o.runStatus ?? 'IN_QUEUE',
          });
        if (o.ignoreWait) return send(res, 200, view(j));
        clock.schedule(jobMs, () => send(res, 200, view(j)));
        return;
      }
      case 'status':
      case 'status-sync':
        if (op === 'status' && o.resetEvery !== undefined && ++statusReads % o.resetEvery === 0) {
          req.socket.destroy();
          return;
        }
        if (!job && o.unknownJobFound)
          return send(res, 200, { id, status: 'FAILED', error: 'job not found' });
        return job ? send(res, 200, view(job)) : send(res, 404, { error: `job ${String(id)} not found` });
      case 'stream': {
        if (!job) return send(res, 404, { error: 'job not found' });
        const status = statusOf(job);
        if (o.dropAfterRead && (status === 'COMPLETED' || status === 'CANCELLED')) job.read = true;
        return send(res, 200, { id: job.id, status, stream: [] });
      }
      case 'cancel':
        if (!job || (o.cancelQueuedOnly && statusOf(job) !== 'IN_QUEUE'))
          return send(res, 404, { error: 'job not found' });
        if (statusOf(job) !== 'COMPLETED') job.cancelled = true;
        return send(res, 200, {
          id: job.id,
          status: statusOf(job) === 'CANCELLED' ? 'CANCELLED' : statusOf(job),
        });
      case 'retry':
        return job
          ? send(res, 400, { error: 'only FAILED or TIMED_OUT jobs can be retried' })
          : send(res, 404, { error: 'job not found' });
      case 'purge-queue':
        return send(res, 200, { removed: 0, status: 'completed' });
      case 'health': {
        const all = [...jobs.values()].map(statusOf);
        return send(res, 200, {
          jobs: {
            completed: all.filter((s) => s === 'COMPLETED').length,
            failed: 0,
            inProgress: all.filter((s) => s === 'IN_PROGRESS').length,
            inQueue: 0,
            retried: 0,
          },
          workers: { idle: 1, running: 0 },
        });
      }
      default:
        return send(res, 404, { detail: 'Not Found' });
    }
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      firstAt ??= clock.now();
      const since = clock.now() - firstAt;
      // Cold or not is decided on arrival; a cold answer comes late, as a cold worker's does.
      if (o.stall && since >= o.stall.fromMs && since < o.stall.untilMs)
        clock.schedule(o.stall.untilMs - since, () => handle(req, res, body, false));
      else if (o.cold && isCold()) clock.schedule(o.cold.delayMs, () => handle(req, res, body, true));
      else handle(req, res, body, false);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    url: origin,
    base: o.root ? origin : `${origin}/v2/${o.endpointId ?? 'ep'}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
