import { completionTokens, eventText } from './output-reading.js';

/** The keys a streamed text comes under (chat's `delta.content`, a completion's `text`), as servers write them. */
const TEXT_KEYS = ['"content":', '"content": ', '"text":', '"text": '];
/** A plain text put where an event's text was, to prove the shape (see `learn`). */
const PROBE = 'jobstorm-shape-probe';
/** Shapes learnt in a row without reading an event, after which a stream is parsed event by event. */
const GIVE_UP_AFTER = 3;

/** No quote, backslash or control character: the text is its own JSON string body (RFC 8259, 7). */
function plain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** A string of its own: V8 keeps a slice as a view into the string it was cut from. */
function copyOf(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * The raw JSON around the last text event's text, so that an event of the same shape is read
 * without `JSON.parse` (issue 48: at one event a token, parsing every event was the largest share
 * of jobstorm's CPU on a streamed `/openai` load). A stream's chunks differ only in their text: the
 * same id, model, created time and choice around it. An event whose data starts with the same
 * prefix and ends with the same suffix, with between them a text that has no quote, backslash or
 * control character, IS that JSON with another string in one place: valid, and read exactly as
 * parsing it would read it (the same usage, no error member, that text). Anything else (the first
 * event, a text with escapes, a usage that moves, a broken event) is parsed as before, and a
 * parsed text event teaches the shape again. Nothing here decides a framing verdict the parse
 * would not have made.
 */
export class EventShape {
  private prefix = '';
  private suffix = '';
  private usage: number | undefined;
  private armed = false;
  /** Events read by the shape learnt last. */
  private used = 0;
  /** Shapes learnt in a row that read no event: a stream whose chunks all differ (a usage that moves). */
  private unused = 0;

  /** Learns the shape of a parsed text event: `data` its JSON, `event` what it parsed to, `text` its text. */
  learn(data: string, event: object, text: string): void {
    // Learning costs a search and a parse: a stream whose shapes never repeat stops paying for it.
    this.unused = this.used === 0 ? this.unused + 1 : 0;
    this.used = 0;
    this.armed = false;
    if (this.unused > GIVE_UP_AFTER || 'error' in event || !plain(text)) return;
    const quoted = `"${text}"`;
    for (const key of TEXT_KEYS) {
      const needle = key + quoted;
      const at = data.indexOf(needle);
      if (at < 0) continue;
      // Copies, not slices: a slice would keep the whole socket read it came from alive for as
      // long as the stream is read.
      this.prefix = copyOf(data.slice(0, at + key.length + 1));
      this.suffix = copyOf(data.slice(at + needle.length - 1));
      this.usage = completionTokens(event);
      this.armed = this.proven();
      return;
    }
  }

  /** The text of an event of the learnt shape; undefined when `data` is not one (parse it). */
  text(data: string): string | undefined {
    if (!this.armed) return undefined;
    const { prefix, suffix } = this;
    const [p, n] = [prefix.length, data.length];
    // Equality of slices, not startsWith/endsWith: V8 compares two strings' contents at once, but
    // walks startsWith a character at a time (5 times slower over a 150-character prefix, the
    // larger part of reading an event).
    if (n <= p + suffix.length || data.slice(0, p) !== prefix || data.slice(n - suffix.length) !== suffix)
      return undefined;
    const text = data.slice(p, n - suffix.length);
    if (!plain(text)) return undefined;
    this.used++;
    return text;
  }

  /** The usage every event of the learnt shape carries (its completion tokens), if any. */
  get eventUsage(): number | undefined {
    return this.usage;
  }

  /**
   * The found place is the one the event's text was read from: another text put there parses to
   * an event with that text, the same usage and no error. Once per shape learnt, not per event.
   */
  private proven(): boolean {
    try {
      const probe: unknown = JSON.parse(this.prefix + PROBE + this.suffix);
      return (
        typeof probe === 'object' &&
        probe !== null &&
        !('error' in probe) &&
        eventText(probe) === PROBE &&
        completionTokens(probe) === this.usage
      );
    } catch {
      return false;
    }
  }
}
