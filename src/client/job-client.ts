import type { EndpointCreateInput } from '../../contracts/management/schemas.js';
import { MANAGEMENT_OPERATION_CONTRACTS } from '../../contracts/management/operations.js';
import { operationPath } from '../../contracts/queue/operations.js';
import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import { isJobStatus } from '../core/job-status.js';
import type { Operation, QueueOperation } from '../core/operation.js';
import type { RequestFacts } from '../core/record.js';
import { AuthHeaders } from './auth-headers.js';
import type {
  AuthForm,
  AuthMode,
  CallContext,
  ClientResult,
  JobClientOptions,
  JobResult,
} from './client-options.js';
import { assertSubmissionKeys, submissionFacts } from './submission-facts.js';
import { Transport, type Outgoing, type Target } from './transport.js';

/** A submission as an object (serialized once here) or as bytes already serialized by the caller. */
export type Submission = SubmissionBody | string | Uint8Array;

/** A hand-made request for probes: malformed JSON, oversize bodies, missing or wrong keys. */
export interface RawRequest {
  op: Operation;
  method: Outgoing['method'];
  /** Relative to the queue base (or the management base with `management: true`), query included. */
  path: string;
  body?: string | Uint8Array;
  /** Added to (and overriding) the client's own headers. */
  headers?: Record<string, string>;
  /** Defaults to the client's form. */
  auth?: AuthMode;
  management?: boolean;
  jobId?: string;
}

const NO_CONTEXT: CallContext = Object.freeze({});

/**
 * One typed method per operation of SPEC "Queue-based endpoint operations" and the two management
 * calls. Every call resolves (never rejects for a failed request) and emits its record(s).
 */
export class JobClient {
  private readonly transport: Transport;
  private readonly headers: AuthHeaders;
  private readonly queue: Target;
  private readonly management: Target | undefined;
  private readonly form: AuthForm;
  /** Shared, frozen facts for the common case, so plain calls allocate none. */
  private readonly facts: Readonly<Record<AuthMode, RequestFacts>>;

  /** Keep-alive connections per origin. */
  readonly connections: number;
  private readonly methodFor: JobClientOptions['methodFor'];

  constructor(o: JobClientOptions) {
    if (!(o.connections >= 1)) throw new RangeError('connections must be at least 1');
    if (o.timeoutMs !== undefined && !(o.timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    if (o.retry429 && !(o.retry429.attempts >= 1))
      throw new RangeError('retry429.attempts must be at least 1');
    let seq = 0;
    this.transport = new Transport({
      clock: o.clock,
      connections: o.connections,
      timeoutMs: o.timeoutMs,
      retry429: o.retry429,
      onRecord: o.onRecord,
      onSend: o.onSend,
      onSettled: o.onSettled,
      loopGapAt: o.loopGapAt,
      onFirstOpen: o.onFirstOpen,
      shard: o.shard,
      nextSeq: o.nextSeq ?? (() => ++seq),
      // Redacting a very short key from bodies would cut ordinary words apart ("k" in "workers").
      secret: o.apiKey.length >= 8 ? o.apiKey : '',
      localAddress: o.localAddress,
    });
    this.connections = o.connections;
    this.methodFor = o.methodFor;
    this.headers = new AuthHeaders(o.apiKey, o.auth);
    this.form = o.auth;
    this.queue = this.transport.target(o.baseUrl);
    this.management = o.managementUrl === undefined ? undefined : this.transport.target(o.managementUrl);
    this.facts = Object.freeze({
      bearer: Object.freeze({ auth: 'bearer' }),
      bare: Object.freeze({ auth: 'bare' }),
      missing: Object.freeze({ auth: 'missing' }),
      wrong: Object.freeze({ auth: 'wrong' }),
      none: Object.freeze({ auth: 'none' }),
    });
  }

  /** POST /run. */
  run(body: Submission, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    return this.submit('run', '/run', body, undefined, ctx);
  }

  /** POST /runsync?wait=. */
  runsync(body: Submission, opts: { wait?: number } = {}, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    const path = opts.wait === undefined ? '/runsync' : `/runsync?wait=${String(opts.wait)}`;
    return this.submit('runsync', path, body, opts.wait === undefined ? undefined : { wait: opts.wait }, ctx);
  }

  /** GET /status/<id>?ttl=. */
  status(jobId: string, opts: { ttl?: number } = {}, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    const base = operationPath('status', jobId);
    if (opts.ttl === undefined) return this.jobCall('status', 'GET', base, jobId, ctx);
    return this.jobCall('status', 'GET', `${base}?ttl=${String(opts.ttl)}`, jobId, ctx, {
      statusTtl: opts.ttl,
    });
  }

  /** GET /status-sync/<id>?wait= (what the official js client calls after an unfinished /runsync). */
  statusSync(jobId: string, opts: { wait?: number } = {}, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    const base = operationPath('status-sync', jobId);
    if (opts.wait === undefined) return this.jobCall('status-sync', 'GET', base, jobId, ctx);
    return this.jobCall('status-sync', 'GET', `${base}?wait=${String(opts.wait)}`, jobId, ctx, {
      wait: opts.wait,
    });
  }

  /** GET /stream/<id>: the body is either stream shape (envelope or bare array). */
  stream(jobId: string, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    return this.jobCall('stream', 'GET', operationPath('stream', jobId), jobId, ctx);
  }

  /** POST /cancel/<id>. */
  cancel(jobId: string, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    return this.jobCall('cancel', 'POST', operationPath('cancel', jobId), jobId, ctx);
  }

  /** POST /retry/<id>. */
  retry(jobId: string, ctx: CallContext = NO_CONTEXT): Promise<JobResult> {
    return this.jobCall('retry', 'POST', operationPath('retry', jobId), jobId, ctx);
  }

  /** POST /purge-queue. */
  purgeQueue(ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    return this.adapted('purge-queue', 'POST', '/purge-queue', undefined, ctx);
  }

  /** GET /health. */
  health(ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    return this.adapted('health', 'GET', '/health', undefined, ctx);
  }

  /**
   * `/openai/v1/<path>`: POST with `body` (`chat/completions`, `completions`), or GET `models`.
   * A body with `stream: true` is read as server-sent events, timed event by event (record `sse`).
   */
  openai(
    path: string,
    body: Record<string, unknown> | undefined,
    ctx: CallContext = NO_CONTEXT,
    keepText = false,
  ): Promise<ClientResult> {
    const clean = path.replace(/^\/+/, '');
    const json = body === undefined ? null : JSON.stringify(body);
    const method = json === null ? 'GET' : 'POST';
    const x = this.outgoing(
      'openai',
      method,
      `/openai/v1/${clean}`,
      json,
      json === null ? 0 : Buffer.byteLength(json),
      undefined,
      this.form,
      ctx,
    );
    x.noJobId = true;
    if (body?.stream === true) {
      x.sse = true;
      x.facts = { ...x.facts, stream: true };
      x.keepText = keepText;
    }
    return this.transport.send(x, ctx);
  }

  /** GET /requests: the endpoint's recent requests. */
  requests(ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    const x = this.outgoing('requests', 'GET', '/requests', null, 0, undefined, this.form, ctx);
    x.noJobId = true;
    return this.transport.send(x, ctx);
  }

  /** POST {base_url}/v1/pods/<podId>/start (management API: bearer form always). */
  startPod(podId: string, ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    const path = MANAGEMENT_OPERATION_CONTRACTS.StartPod.path.replace(':podId', encodeURIComponent(podId));
    const x = this.outgoing('StartPod', 'POST', path, null, 0, undefined, 'bearer', ctx);
    x.target = this.managementTarget();
    return this.transport.send(x, ctx);
  }

  /** POST {base_url}/v1/endpoints. */
  createEndpoint(body: EndpointCreateInput, ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    const json = JSON.stringify(body);
    const path = MANAGEMENT_OPERATION_CONTRACTS.CreateEndpoint.path;
    const x = this.outgoing(
      'CreateEndpoint',
      'POST',
      path,
      json,
      Buffer.byteLength(json),
      undefined,
      'bearer',
      ctx,
    );
    x.target = this.managementTarget();
    return this.transport.send(x, ctx);
  }

  /** Any request, as given: for probes the typed methods refuse to build. */
  send(raw: RawRequest, ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    const mode = raw.auth ?? this.form;
    const body = raw.body ?? null;
    const reqBytes = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const x = this.outgoing(raw.op, raw.method, raw.path, body, reqBytes, raw.jobId, mode, ctx);
    if (raw.headers) x.headers = { ...x.headers, ...raw.headers };
    if (raw.management) x.target = this.managementTarget();
    return this.transport.send(x, ctx);
  }

  /**
   * As many requests in flight as there are connections: one more would wait in the pool's queue,
   * as a request, for a connection to free up (with pipelining 1, a connection carries one at a time).
   */
  get saturated(): boolean {
    return this.transport.inFlight >= this.connections;
  }

  /**
   * Opens up to `n` connections to the target's queue endpoint before they are needed (at most
   * `connections`, counting those open already), so the first requests do not wait for them;
   * resolves with how many are open.
   */
  openConnections(n: number): Promise<number> {
    return this.transport.open(this.queue, n);
  }

  /** Waits for requests in flight, then closes every connection. */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** Closes every connection now; requests in flight end as records with an error. */
  destroy(): Promise<void> {
    return this.transport.destroy();
  }

  private async submit(
    op: 'run' | 'runsync',
    path: string,
    body: Submission,
    extra: RequestFacts | undefined,
    ctx: CallContext,
  ): Promise<JobResult> {
    let bytes: string | Uint8Array;
    let facts = this.facts[this.form];
    if (typeof body === 'string' || body instanceof Uint8Array) {
      bytes = body;
    } else {
      assertSubmissionKeys(body);
      facts = submissionFacts(facts, body);
      bytes = JSON.stringify(body);
    }
    const reqBytes = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength;
    const x = this.outgoing(op, 'POST', path, bytes, reqBytes, undefined, this.form, ctx, extra, facts);
    return withJob(await this.transport.send(x, ctx));
  }

  private async jobCall(
    op: QueueOperation,
    method: 'GET' | 'POST',
    path: string,
    jobId: string,
    ctx: CallContext,
    extra?: RequestFacts,
  ): Promise<JobResult> {
    return withJob(await this.adapted(op, method, path, jobId, ctx, extra));
  }

  /**
   * A body-less queue call with the contract's `method`, or the one the target was found to take
   * instead (marked `adaptedFrom`). A 405 that shows it for the first time is asked again at once
   * the way the target takes it: the flow goes on, and both exchanges are records.
   */
  private async adapted(
    op: QueueOperation,
    method: 'GET' | 'POST',
    path: string,
    jobId: string | undefined,
    ctx: CallContext,
    extra?: RequestFacts,
  ): Promise<ClientResult> {
    const send = (m: 'GET' | 'POST' | undefined): Promise<ClientResult> => {
      const facts = m === undefined || m === method ? extra : { ...extra, adaptedFrom: method };
      const x = this.outgoing(op, m ?? method, path, null, 0, jobId, this.form, ctx, facts);
      return this.transport.send(x, ctx);
    };
    const first = this.methodFor?.(op);
    const answer = await send(first);
    if (answer.status !== 405 || first !== undefined) return answer;
    const instead = this.methodFor?.(op);
    return instead === undefined || instead === method ? answer : send(instead);
  }

  private outgoing(
    op: Operation,
    method: Outgoing['method'],
    path: string,
    body: string | Uint8Array | null,
    reqBytes: number,
    jobId: string | undefined,
    mode: AuthMode,
    ctx: CallContext,
    extra?: RequestFacts,
    facts: RequestFacts = this.facts[mode],
  ): Outgoing {
    let f = facts;
    if (extra || ctx.req) f = { ...facts, ...extra, ...ctx.req };
    return {
      op,
      method,
      target: this.queue,
      path,
      headers: this.headers.get(mode, body !== null),
      body,
      reqBytes,
      jobId,
      facts: f,
    };
  }

  private managementTarget(): Target {
    if (!this.management) throw new TypeError('this client has no managementUrl; management calls need one');
    return this.management;
  }
}

function withJob(result: ClientResult): JobResult {
  const b = result.body;
  const out: JobResult = result;
  out.jobId = result.record.jobId;
  if (typeof b === 'object' && b !== null && isJobStatus((b as { status?: unknown }).status)) {
    out.jobStatus = (b as { status: JobResult['jobStatus'] }).status;
  }
  return out;
}

/** Builds a client; see JobClientOptions. */
export function createJobClient(options: JobClientOptions): JobClient {
  return new JobClient(options);
}
