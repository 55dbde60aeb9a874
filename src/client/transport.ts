import type { buildConnector as BuildConnector } from 'undici';
import { buildConnector, Pool } from './undici-parts.js';
import type { Clock } from '../core/clock.js';
import type { Operation } from '../core/operation.js';
import { RECORD_VERSION, type ExchangeRecord, type RequestFacts } from '../core/record.js';
import { toRequestError, type RequestError } from '../core/request-error.js';
import { trimBody } from '../core/trim-body.js';
import { answerOutput } from './output-reading.js';
import type { SseResult } from './sse-reader.js';
import { backoffDelay } from './backoff.js';
import type { CallContext, ClientResult, RetryPolicy } from './client-options.js';
import { BufferedResponse, type Answer } from './buffered-response.js';
import { ConnectionOpener } from './connection-opener.js';
import { DeadlineQueue, type Deadline } from './deadline-queue.js';
import { QUICK_TIMEOUT_MS, operationTimeoutMs } from './operation-timeout.js';

/** A base URL split into the pool that serves its origin and the path prefix of every request. */
export interface Target {
  pool: Pool;
  basePath: string;
}

/** One request, prepared once and sent again unchanged by each 429 retry. */
export interface Outgoing {
  op: Operation;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  target: Target;
  /** Path and query relative to the target base: what the record shows. */
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | null;
  reqBytes: number;
  jobId: string | undefined;
  facts: RequestFacts;
  /** Read a `text/event-stream` answer event by event (an OpenAI `stream: true` request). */
  sse?: boolean;
  /** Keep that stream's text for the caller (`ClientResult.streamedText`). */
  keepText?: boolean;
  /** The answer's `id` is not a job id (the OpenAI routes answer `chatcmpl-...`). */
  noJobId?: boolean;
}

export interface TransportOptions {
  clock: Clock;
  connections: number;
  /** One timeout for every request; left out, each operation gets its own (operation-timeout.ts). */
  timeoutMs?: number;
  retry429: RetryPolicy | undefined;
  onRecord: (record: ExchangeRecord) => void;
  onSend?: (() => void) | undefined;
  onSettled?: (() => void) | undefined;
  loopGapAt?: ((now: number) => number) | undefined;
  shard: string | undefined;
  nextSeq: () => number;
  /** Scrubbed from error messages, in case a transport error ever quotes a header. */
  secret: string;
  /** The local IP address connections leave from (`--local-address`). */
  localAddress?: string;
  /** A request waited for a connection the pool opened for the first time, from `startedAt` to `endedAt`. */
  onFirstOpen?: ((startedAt: number, endedAt: number) => void) | undefined;
}

const NO_CONTEXT: CallContext = Object.freeze({});

/**
 * Sends prepared requests over keep-alive undici pools (one per origin) and turns every exchange,
 * answered or not, into an ExchangeRecord. Nothing here throws for a failed request: refusals,
 * resets, timeouts, aborts and bad JSON are data (DESIGN rule 5).
 */
export class Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly openers = new Map<Pool, { opener: ConnectionOpener; origin: URL }>();
  // One queue per timeout value: each stays first-in first-out (see DeadlineQueue).
  private readonly deadlines = new Map<number, DeadlineQueue>();
  private exchanges = 0;

  constructor(private readonly o: TransportOptions) {}

  /** Requests handed to a pool and not yet answered (or failed): on a connection, or queued for one. */
  get inFlight(): number {
    return this.exchanges;
  }

  private deadlineQueue(x: Outgoing): DeadlineQueue {
    const ms = this.o.timeoutMs ?? operationTimeoutMs(x.op, x.facts.wait);
    let q = this.deadlines.get(ms);
    if (!q) {
      q = new DeadlineQueue(ms, this.o.clock);
      this.deadlines.set(ms, q);
    }
    return q;
  }

  /**
   * undici's connector, leaving from `--local-address` when one is set: the connector is ours, so
   * the pool's own localAddress option would not reach the connections opened before time 0.
   */
  private connector(timeout: number): BuildConnector.connector {
    const inner = buildConnector({ timeout });
    const localAddress = this.o.localAddress;
    if (localAddress === undefined) return inner;
    return (options, callback) => inner({ ...options, localAddress }, callback);
  }

  /** The pool and base path for a base URL; throws for a URL we must not use (config error). */
  target(baseUrl: string): Target {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`unsupported URL scheme in ${url.origin}`);
    if (url.username || url.password)
      throw new TypeError('base URL must not carry credentials; pass the API key instead');
    if (url.search || url.hash)
      throw new TypeError(`base URL must not carry a query or fragment: ${url.origin}${url.pathname}`);
    let pool = this.pools.get(url.origin);
    if (!pool) {
      const t = this.o.timeoutMs;
      // Every exchange has its deadline (the one timeout for all, or its operation's), started
      // before undici's own timers would be and covering the whole exchange, so those are off
      // (0): they would only fire after it, and each request armed two undici fast timers that
      // lived until undici's next half-second tick, long enough to be promoted to the old
      // generation (a heap profile at 4,200 arrivals/s).
      const opener = new ConnectionOpener(
        this.connector(t ?? QUICK_TIMEOUT_MS),
        this.o.connections,
        this.o.clock,
        this.o.onFirstOpen,
      );
      pool = new Pool(url.origin, {
        connections: this.o.connections,
        pipelining: 1,
        connect: opener.connect,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(url.origin, pool);
      this.openers.set(pool, { opener, origin: new URL(url.origin) });
    }
    return { pool, basePath: url.pathname.replace(/\/+$/, '') };
  }

  /** Sends, retrying 429s as the policy allows; resolves with the last attempt. */
  send(x: Outgoing, ctx: CallContext = NO_CONTEXT): Promise<ClientResult> {
    const retry = this.o.retry429;
    if (!retry || retry.attempts <= 1) return this.exchange(x, ctx, 1, ctx.intendedAt);
    return this.sendRetrying(x, ctx, retry);
  }

  /**
   * Opens up to `n` of the target's connections now, before any request needs them (see
   * ConnectionOpener), counting those the pool has open already; resolves with how many it has.
   */
  async open(target: Target, n: number): Promise<number> {
    const o = this.openers.get(target.pool);
    if (!o) return 0;
    const connected = target.pool.stats.connected;
    const waiting = await o.opener.open(o.origin, n - connected);
    return connected + waiting;
  }

  /** Lets requests in flight finish (their deadlines still apply), then closes the pools. */
  async close(): Promise<void> {
    for (const o of this.openers.values()) o.opener.destroy();
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    for (const q of this.deadlines.values()) q.close();
  }

  async destroy(): Promise<void> {
    for (const o of this.openers.values()) o.opener.destroy();
    await Promise.all([...this.pools.values()].map((p) => p.destroy()));
    for (const q of this.deadlines.values()) q.close();
  }

  private async sendRetrying(x: Outgoing, ctx: CallContext, retry: RetryPolicy): Promise<ClientResult> {
    let result = await this.exchange(x, ctx, 1, ctx.intendedAt);
    for (let attempt = 2; result.status === 429 && attempt <= retry.attempts; attempt++) {
      const delay = backoffDelay(retry, attempt - 1, result.record.retryAfter);
      // The retry is due when the backoff ends: latency from intended includes the wait.
      const due = this.o.clock.now() + delay;
      try {
        await this.o.clock.sleep(delay, ctx.signal);
      } catch {
        return result;
      }
      result = await this.exchange(x, ctx, attempt, due);
    }
    return result;
  }

  private async exchange(
    x: Outgoing,
    ctx: CallContext,
    attempt: number,
    intendedAt: number | undefined,
  ): Promise<ClientResult> {
    const clock = this.o.clock;
    const queue = this.deadlineQueue(x);
    const deadline = queue.start(ctx.signal);
    const sentAt = clock.now();
    this.o.onSend?.();
    this.exchanges++;
    let answer: Answer;
    try {
      answer = await this.receive(x, deadline);
    } finally {
      this.exchanges--;
    }
    queue.finish(deadline);
    const endAt = clock.now();
    const { status, firstByteAt, retryAfter, allow, sse } = answer;
    // A server may echo the Authorization header back (401 pages do); records leave the machine.
    const text = this.scrub(answer.text);
    const described = answer.error === undefined ? undefined : this.describe(answer.error);
    const parsed = parseBody(text, status, described);
    const error = parsed === undefined ? described : parsed.error;
    const body = sse !== undefined ? sse.first : parsed?.body;
    const resBytes = responseBytes(answer, text, error);
    const record: ExchangeRecord = {
      v: RECORD_VERSION,
      type: 'exchange',
      seq: this.o.nextSeq(),
      op: x.op,
      method: x.method,
      path: x.path,
      intendedAt: intendedAt ?? sentAt,
      sentAt,
      firstByteAt,
      endAt,
      status,
      error,
      jobId: ctx.jobId ?? x.jobId ?? (x.noJobId === true ? undefined : idOf(body)),
      flow: ctx.flow,
      step: ctx.step,
      shard: ctx.shard ?? this.o.shard,
      attempt,
      reqBytes: x.reqBytes,
      resBytes,
      // Short texts cannot hold a string worth cutting; skip the copy on the hot path.
      body: text.length > 256 ? trimBody(body) : body,
      retryAfter,
      req: x.facts,
    };
    markRecord(record, allow, ctx.arrival === true && attempt === 1);
    const streamedText = addStreamFacts(record, sse, parsed?.body);
    // Time spent waiting for a free connection is ours, not the service's (a runsync that queued
    // behind busy connections did not make the service hold it longer). Under 1 ms it is noise.
    const queued = answer.writtenAt === undefined ? 0 : answer.writtenAt - sentAt;
    if (queued >= 1) record.queuedMs = queued;
    const gap = this.o.loopGapAt?.(endAt) ?? 0;
    if (gap > 0) record.loopGapMs = gap;
    this.o.onRecord(record);
    this.o.onSettled?.();
    return { record, status, body, error, streamedText };
  }

  /** An answer read whole, or an OpenAI stream read event by event as it arrives. */
  private receive(x: Outgoing, deadline: Deadline): Promise<Answer> {
    const answer = new BufferedResponse(deadline, this.o.clock, x.sse === true, x.keepText === true);
    x.target.pool.dispatch(
      { method: x.method, path: x.target.basePath + x.path, headers: x.headers, body: x.body },
      answer,
    );
    return answer.done();
  }

  private scrub(text: string): string {
    const secret = this.o.secret;
    return secret.length > 0 && text.includes(secret) ? text.split(secret).join('[key]') : text;
  }

  private describe(err: unknown): RequestError {
    const e = toRequestError(err);
    const secret = this.o.secret;
    if (secret.length > 0 && e.message?.includes(secret)) e.message = e.message.split(secret).join('[key]');
    return e;
  }
}

/**
 * An SSE answer's framing, and the streamed output an answer carried (read from the whole body,
 * before trimming cuts its token lists' strings); returns the stream's text when it was kept.
 */
function addStreamFacts(
  record: ExchangeRecord,
  sse: SseResult | undefined,
  body: unknown,
): string | undefined {
  if (sse !== undefined) record.sse = sse.facts;
  const output = answerOutput(record.op, sse, body, record.endAt);
  if (output !== undefined) record.output = output;
  return sse?.text;
}

/**
 * The body of a non-empty answer, JSON when it parses; a 2xx that promised JSON and is not is an
 * error (`bad-json`), an error page that is not JSON is evidence, not a failure. Undefined for an
 * empty answer.
 */
function parseBody(
  text: string,
  status: number | undefined,
  error: RequestError | undefined,
): { body: unknown; error: RequestError | undefined } | undefined {
  if (text.length === 0) return undefined;
  try {
    return { body: JSON.parse(text) as unknown, error };
  } catch {
    const promisedJson = error === undefined && status !== undefined && status >= 200 && status < 300;
    return {
      body: text,
      error: promisedJson
        ? { kind: 'bad-json', message: `response body is not JSON (${String(text.length)} chars)` }
        : error,
    };
  }
}

/** Bytes of the answer: an SSE stream's own count, the declared length when whole, else what came. */
function responseBytes(answer: Answer, text: string, error: RequestError | undefined): number {
  if (answer.sse !== undefined) return answer.sse.bytes;
  if (answer.declaredBytes !== undefined && error === undefined) return Number(answer.declaredBytes);
  return answer.receivedBytes ?? Buffer.byteLength(text);
}

function idOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

/** The record's fields that only some exchanges have: a 405's `Allow`, an arrival's first try. */
function markRecord(record: ExchangeRecord, allow: string | undefined, arrival: boolean): void {
  if (allow !== undefined) record.allow = allow;
  if (arrival) record.arrival = true;
}
