import { StringDecoder } from 'node:string_decoder';
import type { SseFacts } from '../core/record.js';
import { EventShape } from './event-shape.js';
import { OutputTally } from './output-reading.js';

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
  // StringDecoder keeps a character cut between two reads whole, at a third of TextDecoder's cost.
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private readonly shape = new EventShape();

  constructor(
    private readonly now: () => number,
    readonly into: SseResult,
  ) {}

  /** A piece of the body as it came off the socket: every event it completes is timed now. */
  push(piece: Buffer | string): void {
    this.into.bytes += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
    const text = typeof piece === 'string' ? piece : this.decoder.write(piece);
    const s = this.pending === '' ? text : this.pending + text;
    const at = this.now();
    // A cursor through the text, one slice per event: a server writes an event per token, and
    // at 100,000 tokens a second re-slicing what is left after each event costs a core's share.
    let from = 0;
    // Where the next blank line of each framing is, found once and again only once the cursor
    // passes it: searching the rest of the text for the framing a stream does not use, at every
    // event, made a piece of n events cost n² (a worker writes a batch of 50 events in one piece).
    let lf = s.indexOf('\n\n');
    let crlf = s.indexOf('\r\n\r\n');
    for (;;) {
      if (lf >= 0 && lf < from) lf = s.indexOf('\n\n', from);
      if (crlf >= 0 && crlf < from) crlf = s.indexOf('\r\n\r\n', from);
      const end = eventEnd(lf, crlf);
      if (end === undefined) break;
      onEvent(s.slice(from, end.at), at, this.into, this.shape);
      from = end.at + end.length;
    }
    this.pending = from === 0 ? s : s.slice(from);
  }

  /** The body ended: a last event without its blank line still counts. */
  end(): void {
    this.pending += this.decoder.end();
    if (this.pending.trim() !== '') onEvent(this.pending, this.now(), this.into, this.shape);
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

/** The end of the event before the first blank line, LF (`lf`) or CRLF (`crlf`); -1 for none. */
function eventEnd(lf: number, crlf: number): { at: number; length: number } | undefined {
  if (lf < 0 && crlf < 0) return undefined;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
}

/** The event's data: its `data:` lines joined; undefined for a comment or a keep-alive. */
function eventData(block: string): string | undefined {
  // The common case, one `data: ` line: no split.
  if (block.startsWith('data: ') && !block.includes('\n') && !block.endsWith('\r')) return block.slice(6);
  let data: string | undefined;
  for (const raw of block.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('data:')) continue;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

function onEvent(block: string, at: number, into: SseResult, shape: EventShape): void {
  const data = eventData(block);
  // Comments and events without data (keep-alives) are not events of the OpenAI stream.
  if (data === undefined) return;
  const f = into.facts;
  if (f.done) {
    f.afterDone++;
    return;
  }
  const known = shape.text(data);
  if (known !== undefined) {
    // An event of the shape the last one had: what parsing it would give, without the parse.
    f.events++;
    into.output.text(shape.eventUsage, at);
    return tokenArrived(into, known, at);
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
  const text = into.output.event(parsed, at);
  if (text === '') return;
  if (typeof parsed === 'object' && parsed !== null) shape.learn(data, parsed, text);
  tokenArrived(into, text, at);
}

/** A streamed text arrived at `at`. */
function tokenArrived(into: SseResult, text: string, at: number): void {
  const f = into.facts;
  if (into.text !== undefined) into.text += text;
  f.tokens++;
  if (f.lastTokenAt !== undefined) f.maxGapMs = Math.max(f.maxGapMs ?? 0, at - f.lastTokenAt);
  f.firstTokenAt ??= at;
  f.lastTokenAt = at;
}
