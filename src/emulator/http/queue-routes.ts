import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS, type SizeBand } from '../../../contracts/queue/limits.js';
import { SubmissionBodySchema } from '../../../contracts/queue/schemas.js';
import type { QueueOperation } from '../../core/operation.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import type { Job } from '../job.js';
import { isJobId } from '../job-id.js';
import { delayTime, jobView } from '../job-view.js';
import type { Admission, LimiterMode } from '../rate-limiter.js';
import { readJson, stalledMessage } from './json-body.js';
import { OpenAiRoutes } from './openai-routes.js';
import { answerRequests } from './requests-route.js';
import { decodeSegment, describeIssues, intParam } from './params.js';
import { sendError, sendJson } from './reply.js';

/** The emulator's body limit: the upper (binary) edge of the contract's size band. */
function bodyLimit(band: SizeBand, oversizeAccepted: boolean): number {
  const limit = band.surelyRejected - 1;
  return oversizeAccepted ? limit * 4 : limit;
}

interface Route {
  op: QueueOperation;
  method: 'GET' | 'POST';
  /** Takes a job id segment. */
  withId: boolean;
  /** Offered by public models too. */
  publicModel: boolean;
}

const ROUTES: Record<string, Route | undefined> = {
  run: { op: 'run', method: 'POST', withId: false, publicModel: false },
  runsync: { op: 'runsync', method: 'POST', withId: false, publicModel: true },
  status: { op: 'status', method: 'GET', withId: true, publicModel: true },
  'status-sync': { op: 'status-sync', method: 'GET', withId: true, publicModel: true },
  stream: { op: 'stream', method: 'GET', withId: true, publicModel: false },
  cancel: { op: 'cancel', method: 'POST', withId: true, publicModel: false },
  retry: { op: 'retry', method: 'POST', withId: true, publicModel: false },
  'purge-queue': { op: 'purge-queue', method: 'POST', withId: false, publicModel: false },
  health: { op: 'health', method: 'GET', withId: false, publicModel: false },
};

/**
 * `/v2/<endpointId>/<operation>[/<jobId>]`: SPEC "Queue-based endpoint operations". Authentication
 * has been checked by the server. Order of refusals: unknown endpoint or route (404), the
 * server-errors fault (500), rate limits (429), then parameters and body (400/413).
 */
export class QueueRoutes {
  private readonly openai: OpenAiRoutes;

  constructor(private readonly core: EmulatorCore) {
    this.openai = new OpenAiRoutes(core);
  }

  /** Answers the request; a returned promise settles when an asynchronous answer is over. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> | undefined {
    const parts = path.split('/');
    if (parts[parts.length - 1] === '' && parts.length > 3) parts.pop();
    const epId = decodeSegment(parts[2] ?? '');
    const ep = epId === undefined ? undefined : this.core.endpoints.get(epId);
    if (ep === undefined) {
      sendError(res, 404, `endpoint ${JSON.stringify(epId ?? parts[2])} not found`);
      return;
    }
    if (parts[3] === 'openai') {
      return this.openai.handle(req, res, ep, parts.slice(4).join('/'));
    }
    if (parts[3] === 'requests' && parts.length === 4 && req.method === 'GET' && !ep.settings.publicModel) {
      answerRequests(this.core, res, ep);
      return;
    }
    const route = ROUTES[parts[3] ?? ''];
    const idCount = parts.length - 4;
    let method = req.method;
    if (route?.op === 'stream' && this.core.faults.has('stream-post-only')) {
      if (method === 'GET') {
        sendError(res, 405, 'method GET not allowed for /stream', { allow: 'POST' });
        return;
      }
      if (method === 'POST') method = 'GET';
    }
    if (
      route === undefined ||
      route.method !== method ||
      idCount !== (route.withId ? 1 : 0) ||
      (ep.settings.publicModel && !route.publicModel)
    ) {
      sendError(
        res,
        404,
        `no operation ${req.method ?? ''} ${path.slice(0, 200)} (operations: run, runsync, status/<id>, status-sync/<id>, stream/<id>, cancel/<id>, retry/<id>, purge-queue, health, requests, openai/v1/...)`,
      );
      return;
    }
    const faults = this.core.faults;
    if (faults.has('missing-routes') && this.notServed(res, route.op)) return;
    if (faults.serverErrorRate > 0 && this.core.rng.next() < faults.serverErrorRate) {
      sendError(res, 500, 'internal server error (emulator fault server-errors)');
      return;
    }
    // A submission takes its concurrency slot only once its body is in (see submit).
    const uploads = route.op === 'run' || route.op === 'runsync';
    const admission = ep.limiter.admit(
      route.op,
      this.core.now(),
      ep.runningWorkers(),
      this.limiterMode(),
      !uploads,
    );
    if (!admission.ok) {
      this.refuseRate(res, route.op, admission);
      return;
    }
    const jobId = route.withId ? decodeSegment(parts[4] ?? '') : undefined;
    if (route.withId && jobId === undefined) {
      ep.limiter.release(route.op);
      sendError(res, 400, 'job id in the path is not valid percent-encoding');
      return;
    }
    switch (route.op) {
      case 'run':
      case 'runsync':
        return this.submit(req, res, ep, route.op, query);
      case 'status-sync':
        this.statusSync(res, ep, jobId ?? '', query);
        return;
      default:
        this.immediate(res, ep, route.op, jobId ?? '', query);
        ep.limiter.release(route.op);
    }
  }

  /** The missing-routes fault: answers as a server without these routes would, and says whether it did. */
  private notServed(res: ServerResponse, op: QueueOperation): boolean {
    if (op !== 'cancel' && op !== 'retry') return false;
    sendJson(res, 404, { detail: 'Not Found' });
    return true;
  }

  private limiterMode(): LimiterMode {
    return { off: this.core.faults.no429, early: this.core.faults.early429 };
  }

  private refuseRate(
    res: ServerResponse,
    op: QueueOperation,
    admission: Extract<Admission, { ok: false }>,
  ): void {
    const retryAfter = String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
    const what =
      admission.reason === 'rate'
        ? `${String(admission.limit)} requests per 10 s`
        : `${String(admission.limit)} concurrent requests`;
    const message = `rate limit of /${op} exceeded (${what} for this endpoint); retry after ${retryAfter} s`;
    sendError(res, 429, message, this.core.faults.badRetryAfter ? undefined : { 'retry-after': retryAfter });
  }

  /** A 200 answer (the odd-status fault sends it as 202). */
  private ok(res: ServerResponse, body: unknown): void {
    sendJson(res, this.core.faults.oddStatus ? 202 : 200, body);
  }

  /** A job status in an answer body that wrong-types leaves alone (malformed-bodies makes it a number). */
  private statusField(status: string): string | number {
    return this.core.faults.malformedBodies ? 0 : status;
  }

  /** Operations answered at once. */
  private immediate(
    res: ServerResponse,
    ep: Endpoint,
    op: QueueOperation,
    jobId: string,
    query: string,
  ): void {
    if (op === 'health') {
      this.ok(res, ep.healthAnswer());
      return;
    }
    if (op === 'purge-queue') {
      const removed = ep.purge();
      this.ok(res, {
        removed: this.core.faults.malformedBodies ? String(removed) : removed,
        status: 'completed',
      });
      return;
    }
    let ttl: number | undefined;
    if (op === 'status') {
      const p = intParam(query, 'ttl', LIMITS.statusTtl, false);
      if (!p.ok) {
        sendError(res, 400, p.message);
        return;
      }
      ttl = p.value;
    }
    const job = ep.get(jobId);
    if (
      job === undefined &&
      op === 'status' &&
      this.core.faults.has('unknown-job-found') &&
      !isJobId(jobId)
    ) {
      this.ok(res, { id: jobId, status: 'FAILED', error: 'job not found' });
      return;
    }
    if (job === undefined) {
      sendError(
        res,
        404,
        `job ${JSON.stringify(jobId.slice(0, 200))} not found (unknown, expired or deleted)`,
      );
      return;
    }
    switch (op) {
      case 'status':
        if (ttl !== undefined) ep.setTtl(job, ttl);
        this.ok(res, ep.statusView(job));
        return;
      case 'stream':
        this.stream(res, ep, job);
        return;
      case 'cancel':
        this.ok(res, { id: job.id, status: this.statusField(ep.cancel(job)) });
        return;
      case 'retry':
        if (ep.retry(job)) this.ok(res, { id: job.id, status: this.statusField('IN_QUEUE') });
        else
          sendError(res, 400, `job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`);
        return;
      default:
        sendError(res, 404, `no operation ${op}`);
    }
  }

  private stream(res: ServerResponse, ep: Endpoint, job: Job): void {
    const faults = this.core.faults;
    const stream = ep.takeStream(job);
    if (this.core.config.streamShape === 'array') {
      // malformed-bodies: the bare array's chunks lose their `output` (it is sent as `data`).
      this.ok(res, faults.malformedBodies ? stream.map((chunk) => ({ data: chunk.output })) : stream);
      return;
    }
    const body: Record<string, unknown> = { id: job.id, status: this.statusField(job.status), stream };
    // Timings straight from the job: the wrong-types fault is about job bodies, not the stream.
    if (isFinalStatus(job.status) && job.startedAt >= 0) {
      body.delayTime = delayTime(job, faults);
      body.executionTime = job.finishedAt - job.startedAt;
      if (job.error !== undefined) body.error = job.error;
    }
    this.ok(res, body);
  }

  /** POST /run and /runsync. */
  private async submit(
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    op: 'run' | 'runsync',
    query: string,
  ): Promise<void> {
    // The concurrency slot is taken once the body is in (a stalled upload holds none) and is ours
    // until we answer; a waiting /runsync hands it to the waiter.
    let occupied = false;
    let handedOver = false;
    try {
      let wait: number | undefined;
      if (op === 'runsync') {
        const p = intParam(query, 'wait', LIMITS.wait, this.core.faults.paramsUnchecked);
        if (!p.ok) {
          sendError(res, 400, p.message, { connection: 'close' });
          req.resume();
          return;
        }
        wait = p.value ?? LIMITS.wait.default;
      }
      const band = op === 'run' ? LIMITS.runPayload : LIMITS.runsyncPayload;
      const limit = bodyLimit(band, this.core.faults.has('oversize-accepted'));
      const body = await readJson(req, limit, this.core.config.bodyTimeoutMs);
      if (body.kind === 'aborted') return;
      if (body.kind === 'stalled') {
        sendError(res, 408, stalledMessage(body.ms), { connection: 'close' });
        return;
      }
      const slot = ep.limiter.occupy(op, this.limiterMode());
      if (!slot.ok) {
        this.refuseRate(res, op, slot);
        return;
      }
      occupied = true;
      if (body.kind === 'too-large') {
        // No `Connection: close`: the rest of the upload is still being read and dropped, and a
        // closed socket would meet the client's next write with EPIPE instead of this answer.
        sendError(
          res,
          413,
          `request body of ${String(body.bytes)} bytes exceeds the /${op} limit of ${String(limit)} bytes`,
        );
        return;
      }
      if (body.kind === 'invalid') {
        sendError(res, 400, body.message);
        return;
      }
      const value = this.core.faults.has('input-optional') ? withInput(body.value) : body.value;
      const parsed = SubmissionBodySchema.safeParse(
        this.core.faults.paramsUnchecked ? clampPolicy(value) : value,
      );
      if (!parsed.success) {
        sendError(res, 400, `invalid job submission: ${describeIssues(parsed.error.issues)}`);
        return;
      }
      const job = ep.submit(parsed.data, op === 'runsync', body.bytes);
      if (op === 'run') {
        this.ok(res, { id: job.id, status: this.statusField('IN_QUEUE') });
        return;
      }
      this.waitAndAnswer(res, ep, job, wait ?? LIMITS.wait.default, () => ep.limiter.release(op));
      handedOver = true;
    } finally {
      if (occupied && !handedOver) ep.limiter.release(op);
    }
  }

  /** GET /status-sync/<id>?wait=: waits like /runsync for an existing job. */
  private statusSync(res: ServerResponse, ep: Endpoint, jobId: string, query: string): void {
    const release = (): void => ep.limiter.release('status-sync');
    const p = intParam(query, 'wait', LIMITS.wait, this.core.faults.paramsUnchecked);
    if (!p.ok) {
      sendError(res, 400, p.message);
      release();
      return;
    }
    const job = ep.get(jobId);
    if (job === undefined) {
      sendError(
        res,
        404,
        `job ${JSON.stringify(jobId.slice(0, 200))} not found (unknown, expired or deleted)`,
      );
      release();
      return;
    }
    this.waitAndAnswer(res, ep, job, p.value ?? LIMITS.wait.default, release);
  }

  /**
   * Answers with the job once it is final, or with its current status when `wait` ms pass
   * (real-service.md "/runsync"); 404 if it is deleted meanwhile. `done` runs exactly once. The
   * runsync-overwait fault ignores the job's end and answers at twice the wait.
   */
  private waitAndAnswer(res: ServerResponse, ep: Endpoint, job: Job, wait: number, done: () => void): void {
    const overwait = this.core.faults.runsyncOverwait;
    if (isFinalStatus(job.status) && !overwait) {
      this.ok(res, jobView(job, this.core.faults));
      done();
      return;
    }
    let finished = false;
    const finish = (answer: () => void): void => {
      if (finished) return;
      finished = true;
      stopWaiting();
      cancelTimer();
      res.off('close', onClose);
      answer();
      done();
    };
    const stopWaiting = overwait
      ? noop
      : ep.wait(job, (j) => {
          finish(() => {
            if (j === undefined) sendError(res, 404, `job ${job.id} was deleted (ttl expired) while waiting`);
            else this.ok(res, jobView(j, this.core.faults));
          });
        });
    const cancelTimer = this.core.timers.schedule(overwait ? 2 * wait : wait, () => {
      finish(() => {
        if (job.gone) sendError(res, 404, `job ${job.id} was deleted (ttl expired) while waiting`);
        else this.ok(res, jobView(job, this.core.faults));
      });
    });
    const onClose = (): void => finish(() => undefined);
    res.on('close', onClose);
  }
}

const noop = (): void => undefined;

/**
 * params-unchecked: policy.ttl and policy.executionTimeout outside their ranges are clamped into
 * them before validation, so they are accepted instead of refused.
 */
function clampPolicy(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('policy' in body)) return body;
  const policy = body.policy;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) return body;
  const clamped: Record<string, unknown> = { ...policy };
  for (const [key, range] of [
    ['ttl', LIMITS.ttl],
    ['executionTimeout', LIMITS.executionTimeout],
  ] as const) {
    const v = clamped[key];
    if (typeof v === 'number' && Number.isInteger(v))
      clamped[key] = Math.min(range.max, Math.max(range.min, v));
  }
  return { ...body, policy: clamped };
}

/** The input-optional fault: a submission object without `input` gets an empty one. */
function withInput(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'input' in value) return value;
  return { ...value, input: {} };
}
