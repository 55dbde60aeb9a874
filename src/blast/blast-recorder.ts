import type { Clock } from '../core/clock.js';
import { RECORD_VERSION, type ExchangeRecord } from '../core/record.js';
import { toRequestError, type RequestError } from '../core/request-error.js';
import { trimBody } from '../core/trim-body.js';
import type { BlastOptions, BlastParse } from './blast-options.js';

/** What autocannon's HTTP parser reports when a response's headers are complete. */
export interface ParsedHead {
  statusCode: number;
  /** Raw header list: name, value, name, value... */
  headers: string[];
}

/** Per connection: what its current response's head said, and when it came. */
export class ConnectionState {
  headersAt = Number.NaN;
  retryAfter: string | undefined = undefined;
}

/**
 * Turns autocannon's responses and errors into ExchangeRecords and keeps the counts.
 *
 * autocannon reports a response's total time only, so `sentAt` is `endAt - responseTime` and
 * `intendedAt` equals it. Its `onResponse` hook would hand us bodies but converts every response's
 * headers first; instead the head comes from the parser's 'headers' event (free) and the body from
 * `verifyBody`, which autocannon calls right after the 'response' event of the same connection.
 * A record that wants its body waits in one slot for that call.
 */
export class BlastRecorder {
  responses = 0;
  errors = 0;
  readonly byStatus: Record<number, number> = {};
  lastAt: number;
  private awaiting: ExchangeRecord | undefined;
  private readonly reqBytes: number;
  private readonly parseAll: boolean;
  private readonly parseNone: boolean;

  constructor(
    private readonly o: BlastOptions,
    private readonly clock: Clock,
    private readonly nextSeq: () => number,
    parse: BlastParse,
  ) {
    this.reqBytes = o.body === undefined ? 0 : Buffer.byteLength(o.body);
    this.lastAt = clock.now();
    this.parseAll = parse === 'always';
    this.parseNone = parse === 'never';
  }

  head(conn: ConnectionState, head: ParsedHead): void {
    conn.headersAt = this.clock.now();
    const s = head.statusCode;
    // Only throttling and errors carry a Retry-After worth reading.
    conn.retryAfter = s >= 200 && s < 300 ? undefined : headerValue(head.headers, 'retry-after');
  }

  response(conn: ConnectionState, status: number, bytes: number, responseTime: number): void {
    this.flush();
    const endAt = this.clock.now();
    this.lastAt = endAt;
    const sentAt = endAt - responseTime;
    this.responses++;
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    const record = this.record(sentAt, endAt, undefined);
    const headersAt = conn.headersAt;
    record.firstByteAt = headersAt >= sentAt && headersAt <= endAt ? headersAt : undefined;
    record.status = status;
    // Bytes on the wire for this response, headers included, as autocannon counts them.
    record.resBytes = bytes;
    record.retryAfter = conn.retryAfter;
    const ok = status >= 200 && status < 300;
    if (this.parseAll || (!this.parseNone && !ok)) {
      this.awaiting = record;
    } else {
      // Not read on purpose (reading every 2xx would cost the blast its speed): say so, so the
      // schema checks do not take a missing body for a broken one.
      record.bodyUnread = true;
      this.o.onRecord(record);
    }
  }

  /** autocannon's `verifyBody`: completes the record waiting for its body. Always true. */
  readonly body = (text: unknown): boolean => {
    const record = this.awaiting;
    if (!record) return true;
    this.awaiting = undefined;
    if (typeof text === 'string' && text.length > 0) {
      try {
        record.body = trimBody(JSON.parse(text));
      } catch {
        record.body = trimBody(text);
        const s = record.status ?? 0;
        if (s >= 200 && s < 300) record.error = { kind: 'bad-json', message: 'response body is not JSON' };
      }
    }
    this.o.onRecord(record);
    return true;
  };

  error(err: unknown): void {
    this.flush();
    const at = this.clock.now();
    this.lastAt = at;
    this.errors++;
    this.o.onRecord(this.record(at, at, blastError(err)));
  }

  /** Emits a record whose body never came (its connection ended first): losing it would be worse. */
  flush(): void {
    const record = this.awaiting;
    if (!record) return;
    this.awaiting = undefined;
    this.o.onRecord(record);
  }

  private record(sentAt: number, endAt: number, error: RequestError | undefined): ExchangeRecord {
    const o = this.o;
    return {
      v: RECORD_VERSION,
      type: 'exchange',
      seq: this.nextSeq(),
      op: o.op,
      method: o.method,
      path: o.path,
      intendedAt: sentAt,
      sentAt,
      firstByteAt: undefined,
      endAt,
      status: undefined,
      error,
      jobId: o.jobId,
      flow: o.flow,
      step: o.step,
      shard: o.shard,
      attempt: 1,
      reqBytes: this.reqBytes,
      resBytes: 0,
      body: undefined,
      retryAfter: undefined,
      req: o.req,
    };
  }
}

function headerValue(raw: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/** autocannon reports its own timeout as a bare Error; everything else is the socket's. */
function blastError(err: unknown): RequestError {
  if (err instanceof Error && err.message === 'request timed out' && !('code' in err)) {
    return { kind: 'timeout', message: err.message };
  }
  return toRequestError(err);
}
