import { randomUUID } from 'node:crypto';

/*
 * Generated output ("x" × output_bytes, up to 64 MiB) is never built as a string per answer: a view
 * holds a GeneratedText, serialization leaves a gap for it, and the writer fills the gap from one
 * shared buffer with backpressure. Nine readers of a 64 MiB output then cost socket buffers, not
 * nine copies of the output.
 */

/** Up to this size a generated string is built: one small allocation is cheaper than a gap. */
export const GENERATE_INLINE_MAX = 64 * 1024;

/** Placeholder JSON.stringify writes for a GeneratedText while a payload is being serialized. */
const PLACEHOLDER = `jobstorm-fill-${randomUUID()}`;
/** Fill sizes met by the serialization in progress (JSON.stringify is synchronous: one at a time). */
let collecting: number[] | undefined;

/** `bytes` characters of "x" in a view; serializes as that string everywhere. */
export class GeneratedText {
  constructor(readonly bytes: number) {}

  toJSON(): string {
    if (collecting === undefined) return FILL_CHAR.repeat(this.bytes);
    collecting.push(this.bytes);
    return PLACEHOLDER;
  }
}

const FILL_CHAR = 'x';

/** Generated text of `bytes` characters: a string when small, a GeneratedText when large. */
export function generatedText(bytes: number): string | GeneratedText {
  return bytes <= GENERATE_INLINE_MAX ? FILL_CHAR.repeat(bytes) : new GeneratedText(bytes);
}

/** A serialized JSON body: texts[0], fills[0] "x"s, texts[1], …, texts[n]. */
export interface JsonPayload {
  readonly texts: readonly string[];
  readonly fills: readonly number[];
  /** Total length in bytes. */
  readonly bytes: number;
}

/** Serializes a value whose strings may be GeneratedText; the common case is one plain text. */
export function serializePayload(value: unknown): JsonPayload {
  const fills: number[] = [];
  collecting = fills;
  let text: string;
  try {
    text = stringify(value);
  } finally {
    collecting = undefined;
  }
  if (fills.length === 0) return { texts: [text], fills, bytes: Buffer.byteLength(text) };
  const texts = text.split(PLACEHOLDER);
  if (texts.length !== fills.length + 1) {
    // A client string held the placeholder itself: give up on gaps for this one body.
    const whole = stringify(value);
    return { texts: [whole], fills: [], bytes: Buffer.byteLength(whole) };
  }
  let bytes = 0;
  for (const t of texts) bytes += Buffer.byteLength(t);
  for (const f of fills) bytes += f;
  return { texts, fills, bytes };
}

/** JSON text of a value; undefined (which JSON.stringify passes through) is null. */
function stringify(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** The shared source of every fill: never written to after creation, so sharing it is safe. */
const FILL = Buffer.alloc(64 * 1024, FILL_CHAR);

/** The payload's pieces in order: its texts and slices of the shared fill buffer. */
export function* payloadChunks(payload: JsonPayload): Generator<string | Buffer> {
  const { texts, fills } = payload;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i] as string;
    if (t !== '') yield t;
    let left = fills[i] ?? 0;
    while (left > 0) {
      const n = Math.min(left, FILL.length);
      yield n === FILL.length ? FILL : FILL.subarray(0, n);
      left -= n;
    }
  }
}
