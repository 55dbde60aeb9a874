import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import type { Deadline, DeadlineWatcher } from './deadline-queue.js';
import { emptySse, SseParser, type SseResult } from './sse-reader.js';

/** What an exchange keeps of an answer: the status, four headers, the body as text, or the error. */
export interface Answer {
  status: number | undefined;
  firstByteAt: number | undefined;
  /**
   * When the request went onto a connection: later than its send when every connection of the
   * pool was busy and it waited in undici's queue. Unknown (undefined) where undici does not say.
   */
  writtenAt?: number | undefined;
  retryAfter: string | undefined;
  allow: string | undefined;
  contentType: string | undefined;
  declaredBytes: string | undefined;
  /** Body bytes as received (before decoding), when known. */
  receivedBytes?: number;
  text: string;
  error: unknown;
  /** A `text/event-stream` answer read event by event (asked for with `events`), in place of `text`. */
  sse?: SseResult | undefined;
}

type Controller = Dispatcher.DispatchController;
type Headers = Record<string, string | string[] | undefined>;

/**
 * Reads one answer whole through undici's dispatch handler API. `pool.request()` builds, per
 * request, an AsyncResource, a Readable body stream and the consumer that reads it to text; this
 * handler builds none of them (issue 17: with it, jobstorm kept the pace of 4,000 arrivals/s on
 * one core, where it had fallen behind at 2,900; bench/engine-vs-peers.ts). An answer here is a
 * status, the four headers a record keeps, and the body chunks joined at the end.
 *
 * The deadline aborts the exchange wherever it is: before the request left (it is aborted as soon
 * as undici starts it, as `request()` does) or while the answer arrives.
 *
 * With `events`, a 2xx `text/event-stream` answer (an OpenAI stream) is parsed as its pieces
 * arrive, each event timed then, and its text is not kept; any other answer is read whole as
 * usual. Going through the same handler, a stream also says when it went onto a connection.
 */
export class BufferedResponse implements Dispatcher.DispatchHandler, Answer, DeadlineWatcher {
  status: number | undefined = undefined;
  firstByteAt: number | undefined = undefined;
  writtenAt: number | undefined = undefined;
  retryAfter: string | undefined = undefined;
  allow: string | undefined = undefined;
  contentType: string | undefined = undefined;
  declaredBytes: string | undefined = undefined;
  receivedBytes = 0;
  text = '';
  error: unknown = undefined;
  sse: SseResult | undefined = undefined;
  private parser: SseParser | undefined = undefined;
  private controller: Controller | undefined = undefined;
  private chunks: Buffer[] | Buffer | undefined = undefined;
  private settle: (() => void) | undefined = undefined;
  private ended = false;

  constructor(
    private readonly deadline: Deadline,
    private readonly clock: Clock,
    private readonly events = false,
    /** Keep an event stream's text (a multi-turn chat sends it back in its next turn). */
    private readonly keepText = false,
  ) {
    deadline.watcher = this;
  }

  /** Resolves once the answer is read whole or failed; never rejects. */
  done(): Promise<Answer> {
    if (this.ended) return Promise.resolve(this);
    return new Promise<Answer>((resolve) => {
      this.settle = () => resolve(this);
    });
  }

  onRequestStart(controller: Controller): void {
    // undici calls this as it takes the request from its queue and writes it to a socket.
    this.writtenAt = this.clock.now();
    this.controller = controller;
    if (this.deadline.aborted) controller.abort(this.deadline.reason ?? new Error('aborted'));
  }

  onResponseStart(_controller: Controller, statusCode: number, headers: Headers): void {
    // 1xx answers are interim; the final status follows.
    if (statusCode < 200) return;
    this.firstByteAt = this.clock.now();
    this.status = statusCode;
    this.retryAfter = firstHeader(headers['retry-after']);
    if (statusCode === 405) this.allow = firstHeader(headers.allow);
    this.contentType = firstHeader(headers['content-type']);
    this.declaredBytes = firstHeader(headers['content-length']);
    if (this.events && statusCode < 300 && this.contentType?.startsWith('text/event-stream') === true) {
      this.sse = emptySse();
      if (this.keepText) this.sse.text = '';
      this.parser = new SseParser(() => this.clock.now(), this.sse);
    }
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    this.receivedBytes += chunk.length;
    if (this.parser !== undefined) {
      this.parser.push(chunk);
      return;
    }
    const c = this.chunks;
    if (c === undefined) this.chunks = chunk;
    else if (Array.isArray(c)) c.push(chunk);
    else this.chunks = [c, chunk];
  }

  onResponseEnd(): void {
    if (this.parser !== undefined) {
      this.parser.end();
      this.parser = undefined;
      this.end();
      return;
    }
    const c = this.chunks;
    this.chunks = undefined;
    const text =
      c === undefined ? '' : Array.isArray(c) ? Buffer.concat(c).toString('utf8') : c.toString('utf8');
    // As undici's body.text(): a UTF-8 byte order mark is not part of the text.
    this.text = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    this.end();
  }

  onResponseError(_controller: Controller | undefined, err: Error): void {
    this.chunks = undefined;
    // A stream cut short keeps the events that came before the cut.
    this.parser = undefined;
    this.error = err;
    // An answer cut short says what status it had, but its body is not evidence.
    this.text = '';
    this.end();
  }

  onDeadline(reason: Error): void {
    this.controller?.abort(reason);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.deadline.watcher = null;
    // undici's controller holds the request, its handler chain and the answer's raw header
    // buffers. Kept from here, that cluster outlived its exchange, survived scavenges and was
    // promoted: about 1 MB per scavenge at 1,000 requests/s, 5 ms pauses instead of 1.5 ms
    // (node --trace-gc-nvp; bench/gc-survival.ts). Nothing needs it once the answer is whole.
    this.controller = undefined;
    this.settle?.();
  }
}

/** The first value of a header undici may give as a list. */
export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
