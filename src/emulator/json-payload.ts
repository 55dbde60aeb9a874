import { randomUUID } from 'node:crypto';

/*
 * Large parts of an answer are never built per answer. Generated output ("x" × output_bytes, up to
 * 64 MiB) is a GeneratedText: serialization leaves a gap for it and the writer fills the gap from
 * one shared buffer with backpressure. A large echoed input is a SharedJson: serialized once,
 * its bytes shared by every answer that includes it. Nine readers of a 64 MiB output then cost
 * socket buffers, not nine copies of the output.
 */

/** Up to this size a generated string is built: one small allocation is cheaper than a gap. */
export const GENERATE_INLINE_MAX = 64 * 1024;

/** Placeholder JSON.stringify writes for a gap while a payload is being serialized. */
const PLACEHOLDER = `jobstorm-gap-${randomUUID()}`;
/** Gaps met by the serialization in progress (JSON.stringify is synchronous: one at a time). */
let collecting: Gap[] | undefined;

/** What stands in a gap: a count of "x" characters (inside a string), or JSON text to copy. */
export type Gap = number | Buffer;

/** `bytes` characters of "x" in a view; serializes as that string everywhere. */
export class GeneratedText {
  constructor(readonly bytes: number) {}

  toJSON(): string {
    if (collecting === undefined) return FILL_CHAR.repeat(this.bytes);
    collecting.push(this.bytes);
    return PLACEHOLDER;
  }
}

/** A value with its JSON text made once; serializes as the value everywhere. */
export class SharedJson {
  constructor(
    readonly value: unknown,
    readonly json: Buffer,
  ) {}

  toJSON(): unknown {
    if (collecting === undefined) return this.value;
    collecting.push(this.json);
    return PLACEHOLDER;
  }
}

const FILL_CHAR = 'x';

/** Generated text of `bytes` characters: a string when small, a GeneratedText when large. */
export function generatedText(bytes: number): string | GeneratedText {
  return bytes <= GENERATE_INLINE_MAX ? FILL_CHAR.repeat(bytes) : new GeneratedText(bytes);
}

/** A serialized JSON body: texts[0], gaps[0], texts[1], …, texts[n]. */
export interface JsonPayload {
  readonly texts: readonly string[];
  readonly gaps: readonly Gap[];
  /** Total length in bytes. */
  readonly bytes: number;
}

/** Serializes a value that may hold GeneratedText and SharedJson; the common case is one plain text. */
export function serializePayload(value: unknown): JsonPayload {
  const gaps: Gap[] = [];
  collecting = gaps;
  let text: string;
  try {
    text = stringify(value);
  } finally {
    collecting = undefined;
  }
  if (gaps.length === 0) return { texts: [text], gaps, bytes: Buffer.byteLength(text) };
  const texts = text.split(PLACEHOLDER);
  if (texts.length !== gaps.length + 1) {
    // A client string held the placeholder itself: give up on gaps for this one body.
    const whole = stringify(value);
    return { texts: [whole], gaps: [], bytes: Buffer.byteLength(whole) };
  }
  let bytes = 0;
  for (let i = 0; i < gaps.length; i++) {
    const gap = gaps[i] as Gap;
    if (typeof gap === 'number') {
      bytes += gap;
      continue;
    }
    // JSON text replaces the placeholder string whole, quotes included.
    texts[i] = (texts[i] as string).slice(0, -1);
    texts[i + 1] = (texts[i + 1] as string).slice(1);
    bytes += gap.length;
  }
  for (const t of texts) bytes += Buffer.byteLength(t);
  return { texts, gaps, bytes };
}

/** JSON text of a value; undefined (which JSON.stringify passes through) is null. */
function stringify(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** The shared source of every fill: never written to after creation, so sharing it is safe. */
const FILL = Buffer.alloc(64 * 1024, FILL_CHAR);

/** The payload's pieces in order: its texts, slices of the shared fill buffer, shared JSON. */
export function* payloadChunks(payload: JsonPayload): Generator<string | Buffer> {
  const { texts, gaps } = payload;
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i] as string;
    if (t !== '') yield t;
    const gap = gaps[i];
    if (gap === undefined) continue;
    if (typeof gap !== 'number') {
      yield gap;
      continue;
    }
    for (let left = gap; left > 0; left -= FILL.length)
      yield left >= FILL.length ? FILL : FILL.subarray(0, left);
  }
}

/** Inputs at least this large (by their submission body) are echoed from one shared serialization. */
export const SHARE_MIN_BYTES = 256 * 1024;
/** Most bytes of shared serializations kept at once; the least recently used go first. */
const SHARE_MAX_BYTES = 128 * 1024 * 1024;

/**
 * Shared serializations of large values, by identity, within a byte budget: concurrent readers of
 * one large echoed input share one Buffer, and the budget bounds what is kept for readers to come.
 */
export class SharedJsonCache {
  private readonly entries = new Map<object, SharedJson>();
  private bytes = 0;

  constructor(private readonly maxBytes = SHARE_MAX_BYTES) {}

  get(value: object): SharedJson {
    const hit = this.entries.get(value);
    if (hit !== undefined) {
      this.entries.delete(value);
      this.entries.set(value, hit);
      return hit;
    }
    const shared = new SharedJson(value, Buffer.from(stringify(value), 'utf8'));
    if (shared.json.length > this.maxBytes) return shared;
    this.entries.set(value, shared);
    this.bytes += shared.json.length;
    for (const [key, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= old.json.length;
    }
    return shared;
  }

  /** Forgets a value (its job is gone). */
  drop(value: object): void {
    const old = this.entries.get(value);
    if (old === undefined) return;
    this.entries.delete(value);
    this.bytes -= old.json.length;
  }
}
