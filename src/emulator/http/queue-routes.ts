import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS } from '../../../contracts/queue/limits.js';
import { SubmissionBodySchema, type SubmissionBody } from '../../../contracts/queue/schemas.js';
import type { QueueOperation } from '../../core/operation.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import type { Job } from '../job.js';
import { jobView } from '../job-view.js';
import type { Admission } from '../rate-limiter.js';
import { readJson, stalledMessage } from './json-body.js';
import { OpenAiRoutes } from './openai-routes.js';
import { answerRequests } from './requests-route.js';
import { decodeSegment, describeIssues, intParam } from './params.js';
import { sendError, sendJson } from './reply.js';

/**
 * Answers a request to an operation once its route, admission and job id (decoded; '' for
 * operations without one) are settled. Positional, so that a request allocates nothing more for
 * being routed by table.
 */
type Answer = (
  req: IncomingMessage,
  res: ServerResponse,
  ep: Endpoint,
  jobId: string,
  query: string,
) => Promise<void> | undefined;

/** An operation answered at once, whose limiter slot is released right after. */
type AtOnce = (res: ServerResponse, ep: Endpoint, jobId: string, query: string) => void;

interface Route {
  op: QueueOperation;
  method: 'GET' | 'POST';
  /** Takes a job id segment. */
  withId: boolean;
  /** Offered by public models too. */
  publicModel: boolean;
  /** Reads a body before it takes its concurrency slot. */
  uploads: boolean;
  /** Answers, and releases the operation's limiter slot when the answer is over. */
  answer: Answer;
}

type Submission = 'run' | 'runsync';

const NO_OPERATION =
  '(operations: run, runsync, status/<id>, status-sync/<id>, stream/<id>, cancel/<id>, retry/<id>, purge-queue, health, requests, openai/v1/...)';

/**
 * `/v2/<endpointId>/<operation>[/<jobId>]`: SPEC "Queue-based endpoint operations". Authentication
 * has been checked by the server. Order of refusals: unknown endpoint or route (404), a server
 * error the policy injects (500), rate limits (429), then parameters and body (400/413).
 */
export class QueueRoutes {
  private readonly openai: OpenAiRoutes;
  /** Operations by path segment. */
  private readonly routes: Record<string, Route | undefined>;

  constructor(private readonly core: EmulatorCore) {
    this.openai = new OpenAiRoutes(core);
    const at =
      (op: QueueOperation, answer: AtOnce): Answer =>
      (_req, res, ep, jobId, query) => {
        answer(res, ep, jobId, query);
        ep.limiter.release(op);
        return undefined;
      };
    const route = (
      op: QueueOperation,
      method: 'GET' | 'POST',
      withId: boolean,
      publicModel: boolean,
      answer: Answer,
    ): Route => ({ op, method, withId, publicModel, uploads: op === 'run' || op === 'runsync', answer });
    const submit =
      (op: Submission): Answer =>
      (req, res, ep, _jobId, query) =>
        this.submit(req, res, ep, query, op);
    this.routes = Object.assign(Object.create(null) as Record<string, Route | undefined>, {
      run: route('run', 'POST', false, false, submit('run')),
      runsync: route('runsync', 'POST', false, true, submit('runsync')),
      status: route(
        'status',
        'GET',
        true,
        true,
        at('status', (res, ep, id, query) => this.status(res, ep, id, query)),
      ),
      'status-sync': route('status-sync', 'GET', true, true, (_req, res, ep, id, query) =>
        this.statusSync(res, ep, id, query),
      ),
      stream: route(
        'stream',
        'GET',
        true,
        false,
        at('stream', (res, ep, id) => this.stream(res, ep, id)),
      ),
      cancel: route(
        'cancel',
        'POST',
        true,
        false,
        at('cancel', (res, ep, id) => this.cancel(res, ep, id)),
      ),
      retry: route(
        'retry',
        'POST',
        true,
        false,
        at('retry', (res, ep, id) => this.retry(res, ep, id)),
      ),
      'purge-queue': route(
        'purge-queue',
        'POST',
        false,
        false,
        at('purge-queue', (res, ep) => this.purge(res, ep)),
      ),
      health: route(
        'health',
        'GET',
        false,
        false,
        at('health', (res, ep) => this.ok(res, ep.healthAnswer())),
      ),
    });
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
    if (parts[3] === 'openai') return this.openai.handle(req, res, ep, parts.slice(4).join('/'));
    if (parts[3] === 'requests' && parts.length === 4 && req.method === 'GET' && !ep.settings.publicModel) {
      answerRequests(this.core, res, ep);
      return;
    }
    const route = this.match(req, res, ep, parts, path);
    if (route === undefined || !this.admitted(res, ep, route)) return;
    const jobId = route.withId ? decodeSegment(parts[4] ?? '') : '';
    if (jobId === undefined) {
      ep.limiter.release(route.op);
      sendError(res, 400, 'job id in the path is not valid percent-encoding');
      return;
    }
    return route.answer(req, res, ep, jobId, query);
  }

  /** The route the request names, or undefined once a 404 or 405 is answered. */
  private match(
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    parts: string[],
    path: string,
  ): Route | undefined {
    const route = this.routes[parts[3] ?? ''];
    const method = route?.op === 'stream' ? this.streamMethod(res, req.method) : req.method;
    if (method === undefined) return undefined;
    if (
      route === undefined ||
      route.method !== method ||
      parts.length - 4 !== (route.withId ? 1 : 0) ||
      (ep.settings.publicModel && !route.publicModel)
    ) {
      sendError(res, 404, `no operation ${req.method ?? ''} ${path.slice(0, 200)} ${NO_OPERATION}`);
      return undefined;
    }
    if (!this.core.policy.serves(route.op)) {
      // As a server without the route answers.
      sendJson(res, 404, { detail: 'Not Found' });
      return undefined;
    }
    return route;
  }

  /** The method a /stream request counts as, or undefined once a 405 is answered. */
  private streamMethod(res: ServerResponse, method: string | undefined): string | undefined {
    const served = this.core.policy.streamMethod();
    if (served === 'GET') return method;
    if (method === 'GET') {
      sendError(res, 405, 'method GET not allowed for /stream', { allow: served });
      return undefined;
    }
    return method === served ? 'GET' : method;
  }

  /** Whether the request goes on past an injected server error and the rate limits (else answered). */
  private admitted(res: ServerResponse, ep: Endpoint, route: Route): boolean {
    const policy = this.core.policy;
    const error = policy.serverError(this.core.rng);
    if (error !== undefined) {
      sendError(res, 500, error);
      return false;
    }
    // A submission takes its concurrency slot only once its body is in (see submit).
    const mode = policy.limiterMode('queue');
    const admission = ep.limiter.admit(route.op, this.core.now(), ep.runningWorkers(), mode, !route.uploads);
    if (!admission.ok) this.refuseRate(res, route.op, admission);
    return admission.ok;
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
    sendError(res, 429, message, this.core.policy.retryAfterHeader(retryAfter));
  }

  private ok(res: ServerResponse, body: unknown): void {
    sendJson(res, this.core.policy.answerStatus(200, 'queue'), body);
  }

  private notFound(res: ServerResponse, jobId: string): void {
    sendError(res, 404, `job ${JSON.stringify(jobId.slice(0, 200))} not found (unknown, expired or deleted)`);
  }

  /** The job, or undefined once a 404 is answered. */
  private job(res: ServerResponse, ep: Endpoint, jobId: string): Job | undefined {
    const job = ep.get(jobId);
    if (job === undefined) this.notFound(res, jobId);
    return job;
  }

  private purge(res: ServerResponse, ep: Endpoint): void {
    this.ok(res, { removed: this.core.policy.countField(ep.purge()), status: 'completed' });
  }

  private status(res: ServerResponse, ep: Endpoint, jobId: string, query: string): void {
    const ttl = intParam(query, 'ttl', LIMITS.statusTtl, false);
    if (!ttl.ok) {
      sendError(res, 400, ttl.message);
      return;
    }
    const job = ep.get(jobId);
    if (job === undefined) {
      const shown = this.core.policy.unknownJob(jobId);
      if (shown === undefined) this.notFound(res, jobId);
      else this.ok(res, shown);
      return;
    }
    if (ttl.value !== undefined) ep.setTtl(job, ttl.value);
    this.ok(res, ep.statusView(job));
  }

  private cancel(res: ServerResponse, ep: Endpoint, jobId: string): void {
    const job = this.job(res, ep, jobId);
    if (job !== undefined) this.ok(res, { id: job.id, status: this.core.policy.statusField(ep.cancel(job)) });
  }

  private retry(res: ServerResponse, ep: Endpoint, jobId: string): void {
    const job = this.job(res, ep, jobId);
    if (job === undefined) return;
    if (ep.retry(job)) this.ok(res, { id: job.id, status: this.core.policy.statusField('IN_QUEUE') });
    else sendError(res, 400, `job ${job.id} is ${job.status}; only FAILED or TIMED_OUT jobs can be retried`);
  }

  private stream(res: ServerResponse, ep: Endpoint, jobId: string): void {
    const job = this.job(res, ep, jobId);
    if (job === undefined) return;
    const policy = this.core.policy;
    const stream = ep.takeStream(job);
    if (this.core.config.streamShape === 'array') {
      this.ok(res, policy.arrayStream(stream));
      return;
    }
    const body: Record<string, unknown> = { id: job.id, status: policy.statusField(job.status), stream };
    // Timings straight from the job: the field types of job bodies are not the stream envelope's.
    if (isFinalStatus(job.status) && job.startedAt >= 0) {
      body.delayTime = policy.delayTime(job);
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
    query: string,
    op: Submission,
  ): Promise<void> {
    // The concurrency slot is taken once the body is in (a stalled upload holds none) and is ours
    // until we answer; a waiting /runsync hands it to the waiter.
    const held = { slot: false };
    let handedOver = false;
    try {
      let wait = LIMITS.wait.default;
      if (op === 'runsync') {
        const p = this.core.policy.waitParam(query);
        if (!p.ok) {
          sendError(res, 400, p.message, { connection: 'close' });
          req.resume();
          return;
        }
        wait = p.value ?? LIMITS.wait.default;
      }
      const body = await this.submission(req, res, ep, op, held);
      if (body === undefined) return;
      const job = ep.submit(body.value, op === 'runsync', body.bytes);
      if (op === 'run') {
        this.ok(res, { id: job.id, status: this.core.policy.statusField('IN_QUEUE') });
        return;
      }
      this.waitAndAnswer(res, ep, job, wait, () => ep.limiter.release(op));
      handedOver = true;
    } finally {
      if (held.slot && !handedOver) ep.limiter.release(op);
    }
  }

  /**
   * Reads and validates a submission body, taking the concurrency slot (`held` says so) once it
   * is in; undefined once a refusal is answered.
   */
  private async submission(
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    op: Submission,
    held: { slot: boolean },
  ): Promise<{ value: SubmissionBody; bytes: number } | undefined> {
    const policy = this.core.policy;
    const limit = policy.bodyLimit(op === 'run' ? LIMITS.runPayload : LIMITS.runsyncPayload);
    const body = await readJson(req, limit, this.core.config.bodyTimeoutMs);
    if (body.kind === 'aborted') return undefined;
    if (body.kind === 'stalled') {
      sendError(res, 408, stalledMessage(body.ms), { connection: 'close' });
      return undefined;
    }
    const slot = ep.limiter.occupy(op, policy.limiterMode('queue'));
    if (!slot.ok) {
      this.refuseRate(res, op, slot);
      return undefined;
    }
    held.slot = true;
    if (body.kind === 'too-large') {
      // No `Connection: close`: the rest of the upload is still being read and dropped, and a
      // closed socket would meet the client's next write with EPIPE instead of this answer.
      const size = `${String(body.bytes)} bytes exceeds the /${op} limit of ${String(limit)} bytes`;
      sendError(res, 413, `request body of ${size}`);
      return undefined;
    }
    if (body.kind === 'invalid') {
      sendError(res, 400, body.message);
      return undefined;
    }
    const parsed = SubmissionBodySchema.safeParse(policy.submission(body.value));
    if (!parsed.success) {
      sendError(res, 400, `invalid job submission: ${describeIssues(parsed.error.issues)}`);
      return undefined;
    }
    return { value: parsed.data, bytes: body.bytes };
  }

  /** GET /status-sync/<id>?wait=: waits like /runsync for an existing job. */
  private statusSync(res: ServerResponse, ep: Endpoint, jobId: string, query: string): undefined {
    const release = (): void => ep.limiter.release('status-sync');
    const p = this.core.policy.waitParam(query);
    if (!p.ok) {
      sendError(res, 400, p.message);
      release();
      return;
    }
    const job = ep.get(jobId);
    if (job === undefined) {
      this.notFound(res, jobId);
      release();
      return;
    }
    this.waitAndAnswer(res, ep, job, p.value ?? LIMITS.wait.default, release);
  }

  /**
   * Answers with the job once it is final, or with its current status when `wait` ms pass
   * (real-service.md "/runsync"); 404 if it is deleted meanwhile. `done` runs exactly once. The
   * policy's sync wait says whether the job's end is answered at once, and how long the wait is.
   */
  private waitAndAnswer(res: ServerResponse, ep: Endpoint, job: Job, wait: number, done: () => void): void {
    const rule = this.core.policy.syncWait();
    if (isFinalStatus(job.status) && rule.atEnd) {
      this.ok(res, jobView(job, this.core.policy));
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
    const stopWaiting = rule.atEnd
      ? ep.wait(job, (j) => {
          finish(() => {
            if (j === undefined) sendError(res, 404, `job ${job.id} was deleted (ttl expired) while waiting`);
            else this.ok(res, jobView(j, this.core.policy));
          });
        })
      : noop;
    const cancelTimer = this.core.timers.schedule(rule.factor * wait, () => {
      finish(() => {
        if (job.gone) sendError(res, 404, `job ${job.id} was deleted (ttl expired) while waiting`);
        else this.ok(res, jobView(job, this.core.policy));
      });
    });
    const onClose = (): void => finish(() => undefined);
    res.on('close', onClose);
  }
}

const noop = (): void => undefined;
