import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import type { ResultAnswer } from '../external/external-pool.js';
import type { Job } from '../job.js';
import { readJson, stalledMessage } from './json-body.js';
import { decodeSegment } from './params.js';
import { sendError, sendJson } from './reply.js';

/** How many ids follow each operation's segment, and the method it takes. */
const WORKER_OPS: Record<string, { ids: number; method: 'GET' | 'POST' } | undefined> = {
  'job-take': { ids: 1, method: 'GET' },
  'job-take-batch': { ids: 1, method: 'GET' },
  'job-stop': { ids: 1, method: 'GET' },
  ping: { ids: 1, method: 'GET' },
  'job-done': { ids: 2, method: 'POST' },
  'job-stream': { ids: 2, method: 'POST' },
};

/** One worker request, its path checked: the endpoint, the worker, and the job id of a post. */
interface WorkerCall {
  req: IncomingMessage;
  res: ServerResponse;
  ep: Endpoint;
  op: string;
  workerId: string;
  jobId: string | undefined;
  query: string;
}

/** Largest result or stream chunk accepted (the /runsync payload bound). */
const RESULT_LIMIT = 20 * 1024 * 1024;
/** Most jobs one batch take may ask for. */
const BATCH_MAX = 1000;
const WORKER_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** Is this `/v2/<id>/<segment>/…` path one of the worker protocol's? (The server authenticates it apart.) */
export function isWorkerPath(path: string): boolean {
  const a = path.indexOf('/', 4);
  if (a < 0) return false;
  const b = path.indexOf('/', a + 1);
  return b > 0 && WORKER_OPS[path.slice(a + 1, b)] !== undefined;
}

/**
 * `/v2/<endpointId>/{job-take,job-take-batch,job-stop,ping}/<workerId>` and
 * `/v2/<endpointId>/{job-done,job-stream}/<workerId>/<jobId>`: the side of the queue that real
 * workers speak (reference/worker-protocol.md). Takes and stops are long-polls; a refused post
 * answers 4xx and changes no job.
 */
export class WorkerRoutes {
  constructor(private readonly core: EmulatorCore) {}

  /** Each operation's answer, by path segment. */
  private readonly answers: Record<string, ((c: WorkerCall) => void) | undefined> = {
    'job-take': (c) => this.take(c, 1, false),
    'job-take-batch': (c) => this.takeBatch(c),
    'job-stop': (c) => this.stop(c),
    ping: (c) => {
      c.ep.external.ping(c.workerId, pingedJobs(c.query));
      sendJson(c.res, 200, { ok: true });
    },
    'job-done': (c) => this.posted(c),
    'job-stream': (c) => this.posted(c),
  };

  handle(req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
    const parts = path.split('/');
    if (parts[parts.length - 1] === '') parts.pop();
    const epId = decodeSegment(parts[2] ?? '');
    const ep = epId === undefined ? undefined : this.core.endpoints.get(epId);
    if (ep === undefined || ep.settings.publicModel) {
      sendError(res, 404, `endpoint ${JSON.stringify(epId ?? parts[2])} not found`);
      return;
    }
    const op = parts[3] ?? '';
    const spec = WORKER_OPS[op];
    const ids = parts.slice(4).map((p) => decodeSegment(p));
    if (spec === undefined || ids.length !== spec.ids) {
      sendError(
        res,
        404,
        `no worker operation ${req.method ?? ''} ${path.slice(0, 200)} (job-take/<worker>, job-take-batch/<worker>, job-stop/<worker>, ping/<worker>, job-done/<worker>/<job>, job-stream/<worker>/<job>)`,
      );
      return;
    }
    const workerId = ids[0];
    if (workerId === undefined || !WORKER_ID.test(workerId)) {
      sendError(res, 400, 'worker id in the path must be 1-128 letters, digits, "_", ".", ":" or "-"');
      return;
    }
    if (req.method !== spec.method) {
      sendError(res, 405, `${op} takes ${spec.method}`, { allow: spec.method });
      return;
    }
    this.answers[op]?.({ req, res, ep, op, workerId, jobId: ids[1], query });
  }

  private posted(c: WorkerCall): void {
    if (c.jobId === undefined || c.jobId === '') {
      sendError(c.res, 400, 'job id in the path is missing or not valid percent-encoding');
      return;
    }
    void this.post(c.req, c.res, c.ep, c.op, c.workerId, c.jobId);
  }

  private stop(c: WorkerCall): void {
    this.hold(
      c.res,
      c.ep.external.stopPoll(c.workerId, (jobIds) => {
        if (jobIds.length === 0) noContent(c.res);
        else sendJson(c.res, 200, { jobsToStop: jobIds });
      }),
    );
  }

  private takeBatch(c: WorkerCall): void {
    const raw = new URLSearchParams(c.query).get('batch_size') ?? '1';
    const max = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
    if (!(max >= 1 && max <= BATCH_MAX)) {
      sendError(
        c.res,
        400,
        `query parameter batch_size must be an integer from 1 to ${String(BATCH_MAX)}, got ${JSON.stringify(raw.slice(0, 50))}`,
      );
      return;
    }
    this.take(c, max, true);
  }

  private take(c: WorkerCall, max: number, batch: boolean): void {
    this.hold(
      c.res,
      c.ep.external.take(c.workerId, max, (jobs) => {
        if (jobs.length === 0) noContent(c.res);
        else if (batch) sendJson(c.res, 200, jobs.map(takeView));
        else sendJson(c.res, 200, takeView(jobs[0] as Job));
      }),
    );
  }

  /** A long-poll: when the worker hangs up first, its waiter is dropped. */
  private hold(res: ServerResponse, cancel: () => void): void {
    if (res.writableEnded) return;
    res.on('close', cancel);
  }

  private async post(
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    op: string,
    workerId: string,
    jobId: string,
  ): Promise<void> {
    // The worker labels the body form-urlencoded, but it is raw JSON text (worker-protocol.md §5.1).
    const body = await readJson(req, RESULT_LIMIT);
    if (body.kind === 'aborted') return;
    if (body.kind === 'too-large') {
      sendError(res, 413, `result body of ${String(body.bytes)} bytes exceeds ${String(RESULT_LIMIT)} bytes`);
      return;
    }
    if (body.kind === 'invalid') {
      sendError(res, 400, body.message);
      return;
    }
    if (body.kind === 'stalled') {
      sendError(res, 408, stalledMessage(body.ms), { connection: 'close' });
      return;
    }
    const job = ep.get(jobId);
    const answer: ResultAnswer =
      op === 'job-done'
        ? ep.external.result(workerId, job, jobId, body.value)
        : ep.external.streamChunk(workerId, job, jobId, body.value);
    if (answer.status === 200) sendJson(res, 200, { ok: true, message: answer.message });
    else sendError(res, answer.status, answer.message);
  }
}

/** What a worker's take receives: the job's id and input (the handler sees the rest untouched). */
/** Most job ids a heartbeat's `job_id` is read for: it is the worker's running jobs, a handful. */
const PINGED_MAX = 1000;

/** The ids a heartbeat lists (`job_id=a,b`; the SDK joins them with commas). */
function pingedJobs(query: string): string[] {
  const list = new URLSearchParams(query).get('job_id');
  if (list === null || list === '') return [];
  return list.split(',', PINGED_MAX).filter((id) => id !== '');
}

function takeView(job: Job): Record<string, unknown> {
  return { id: job.id, input: job.input };
}

function noContent(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(204);
  res.end();
}
