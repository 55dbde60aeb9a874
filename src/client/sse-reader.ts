import type { SseFacts } from '../core/record.js';
import { OutputTally, carriesText, eventText } from './output-reading.js';

/** How much of a bad event's data a record keeps. */
const EXAMPLE_CHARS = 200;

export interface SseResult {
  facts: SseFacts;
  /** The first event that parsed as JSON (the checks validate its shape). */
  first?: unknown;
  /** Bytes received. */
  bytes: number;
  /** The generated output as it arrived (the token timings). */
  output: OutputTally;
  /** The streamed text, joined, when the caller asked to keep it (a multi-turn chat's answer). */
  text?: string;
}

/**
 * Reads a server-sent-events body as it arrives, timing each event: `data:` lines make an event, a
 * blank line ends it, `data: [DONE]` ends the OpenAI stream. Nothing is kept per event, so a long
 * stream costs no memory. `into` is filled as events come, so a read cut short still says what
 * arrived before the cut.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private pending = '';

  constructor(
    private readonly now: () => number,
    readonly into: SseResult,
  ) {}

  /** A piece of the body as it came off the socket: every event it completes is timed now. */
  push(piece: Buffer | string): void {
    this.into.bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
    this.pending += typeof piece === 'string' ? piece : this.decoder.decode(piece, { stream: true });
    const at = this.now();
    for (;;) {
      const end = eventEnd(this.pending);
      if (end === undefined) break;
      onEvent(this.pending.slice(0, end.at), at, this.into);
      this.pending = this.pending.slice(end.at + end.length);
    }
  }

  /** The body ended: a last event without its blank line still counts. */
  end(): void {
    this.pending += this.decoder.decode();
    if (this.pending.trim() !== '') onEvent(this.pending, this.now(), this.into);
    this.pending = '';
  }
}

export function emptySse(): SseResult {
  return {
    facts: { events: 0, tokens: 0, badEvents: 0, done: false, afterDone: 0 },
    bytes: 0,
    output: new OutputTally(),
  };
}

function eventEnd(s: string): { at: number; length: number } | undefined {
  const lf = s.indexOf('\n\n');
  const crlf = s.indexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return undefined;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
}

function onEvent(block: string, at: number, into: SseResult): void {
  let data: string | undefined;
  for (const raw of block.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('data:')) continue;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  // Comments and events without data (keep-alives) are not events of the OpenAI stream.
  if (data === undefined) return;
  const f = into.facts;
  if (f.done) {
    f.afterDone++;
    return;
  }
  if (data.trim() === '[DONE]') {
    f.done = true;
    return;
  }
  f.events++;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    f.badEvents++;
    f.badExample ??= data.slice(0, EXAMPLE_CHARS);
    return;
  }
  if (into.first === undefined) into.first = parsed;
  if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) f.errorEvent = true;
  into.output.event(parsed, at);
  if (!carriesText(parsed)) return;
  if (into.text !== undefined) into.text += eventText(parsed);
  f.tokens++;
  if (f.lastTokenAt !== undefined) f.maxGapMs = Math.max(f.maxGapMs ?? 0, at - f.lastTokenAt);
  f.firstTokenAt ??= at;
  f.lastTokenAt = at;
}
