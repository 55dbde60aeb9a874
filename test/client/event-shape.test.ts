import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutputTally, eventText } from '../../src/client/output-reading.js';
import { SseParser, emptySse, type SseResult } from '../../src/client/sse-reader.js';

/*
 * Issue 48: the SSE reader reads an event shaped like the one before it without JSON.parse
 * (src/client/event-shape.ts). Every stream here is read twice, by the reader and by a reference
 * that parses every event as the reader did before, and the two must agree on everything the
 * record keeps: counts, bad events and their example, error events, token times, the output's
 * arrivals and usage, the kept text.
 */

const chunk = (content: string, extra: Record<string, unknown> = {}, id = 'chatcmpl-1'): string =>
  JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    ...extra,
  });

/** The reader's semantics with a parse per event: what the fast path must reproduce. */
function reference(datas: readonly string[], times: readonly number[]): SseResult {
  const into = emptySse();
  let text = '';
  const f = into.facts;
  datas.forEach((data, i) => {
    const at = times[i] ?? 0;
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
      f.badExample ??= data.slice(0, 200);
      return;
    }
    into.first ??= parsed;
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) f.errorEvent = true;
    const piece = into.output.event(parsed, at);
    if (piece === '') return;
    text += piece;
    f.tokens++;
    if (f.lastTokenAt !== undefined) f.maxGapMs = Math.max(f.maxGapMs ?? 0, at - f.lastTokenAt);
    f.firstTokenAt ??= at;
    f.lastTokenAt = at;
  });
  into.text = text;
  return into;
}

/** Reads the events through SseParser, one socket read each at times 10, 20, 30… (or two events a read). */
function read(datas: readonly string[], perRead = 1): { result: SseResult; times: number[] } {
  let now = 0;
  const into = emptySse();
  into.text = '';
  const parser = new SseParser(() => now, into);
  const times: number[] = [];
  for (let i = 0; i < datas.length; i += perRead) {
    now += 10;
    const batch = datas.slice(i, i + perRead);
    times.push(...batch.map(() => now));
    parser.push(Buffer.from(batch.map((d) => `data: ${d}\n\n`).join('')));
  }
  parser.end();
  return { result: into, times };
}

function same(datas: readonly string[], perRead = 1): SseResult {
  const { result, times } = read(datas, perRead);
  const ref = reference(datas, times);
  expect(result.facts).toEqual(ref.facts);
  expect(result.first).toEqual(ref.first);
  expect(result.text).toBe(ref.text);
  expect(result.output.facts()).toEqual(ref.output.facts());
  return result;
}

const words = (n: number): string[] => Array.from({ length: n }, (_, i) => `tok${String(i)} `);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the SSE reader reads an event of the last one\'s shape as parsing it would', () => {
  it('a plain stream: the same facts, with one parse to learn, one to prove, and the last two events', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const datas = [
      ...words(50).map((w) => chunk(w)),
      chunk('ünïcødé ✓ 🙂'),
      JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { completion_tokens: 51 } }),
      '[DONE]',
    ];
    const r = same(datas);
    expect(r.facts.tokens).toBe(51);
    expect(r.output.facts()?.usageTokens).toBe(51);
    // The reference's parses are counted too; the reader's alone: 1 (learn) + 1 (probe) + 1 (usage).
    parse.mockClear();
    read(datas);
    expect(parse).toHaveBeenCalledTimes(3);
  });

  it('texts with quotes, backslashes, newlines and control characters go by the parse, and agree', () => {
    const texts = ['a', 'say "hi"', 'b', 'back\\slash', 'c', 'two\nlines', 'd', 'tab\t', 'e', '\u0001', 'f'];
    same(texts.map((t) => chunk(t)));
    same(texts.map((t) => chunk(t)), 3);
  });

  it('a broken event of the same shape is a bad event, as the parse says', () => {
    const good = chunk('x');
    const at = good.indexOf('"x"') + 1;
    const broken = `${good.slice(0, at)}a"b${good.slice(at + 1)}`;
    const r = same([chunk('a'), chunk('b'), broken, chunk('c'), `${chunk('d')}}`]);
    expect(r.facts.badEvents).toBe(2);
    expect(r.facts.badExample).toBe(broken);
  });

  it('an empty text, an error member, a new id and a moving usage each go by the parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const datas = [
      chunk('a'),
      chunk('b'),
      chunk(''),
      chunk('c'),
      chunk('d', { error: { message: 'overloaded' } }),
      chunk('e', {}, 'chatcmpl-2'),
      chunk('f', {}, 'chatcmpl-2'),
      ...words(12).map((w, i) => chunk(w, { usage: { completion_tokens: i + 7 } })),
    ];
    const r = same(datas);
    expect(r.facts.errorEvent).toBe(true);
    expect(r.output.facts()?.unit).toBe('chunks');
    parse.mockClear();
    read(datas);
    // A usage that moves every event: after three shapes that read nothing, no more learning.
    expect(parse.mock.calls.length).toBeLessThan(datas.length + 8);
  });

  it('a usage that stays put is read from the shape (vLLM continuous usage that does not move)', () => {
    const datas = words(20).map((w) => chunk(w, { usage: { completion_tokens: 5 } }));
    same(datas, 4);
  });

  it('a completion stream (`text`, and `"content": ` with a space) is learnt too', () => {
    const completion = (text: string): string =>
      JSON.stringify({ id: 'cmpl-1', object: 'text_completion', choices: [{ index: 0, text }] });
    const parse = vi.spyOn(JSON, 'parse');
    same(words(10).map(completion));
    const spaced = (c: string): string => `{"id": "c", "choices": [{"index": 0, "delta": {"content": "${c}"}}]}`;
    same(words(10).map(spaced));
    parse.mockClear();
    read(words(10).map(spaced));
    expect(parse).toHaveBeenCalledTimes(2);
  });

  it('a text that also sits earlier in the event: the place found is proven wrong, and the parse reads', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const datas = ['m', 'x', 'm', 'y', 'm'].map((t) =>
      JSON.stringify({ note: { content: 'm' }, choices: [{ index: 0, delta: { content: t } }] }),
    );
    same(datas);
    parse.mockClear();
    read(datas);
    // The first event's 'm' is found in `note` first: its probe does not move the event's text, so
    // nothing is learnt (two parses). 'x' is found in its place (two more); the rest are read by shape.
    expect(parse).toHaveBeenCalledTimes(4);
    expect(eventText(JSON.parse(datas[0] ?? '{}'))).toBe('m');
    expect(new OutputTally().facts()).toBeUndefined();
  });
});

describe('SseParser framing inside one read', () => {
  /** Reads `body` in one piece, all at time 5. */
  function once(body: string): SseResult {
    const into = emptySse();
    into.text = '';
    const parser = new SseParser(() => 5, into);
    parser.push(Buffer.from(body));
    parser.end();
    return into;
  }
  const words = Array.from({ length: 50 }, (_, i) => `w${String(i)} `);

  it('reads a worker batch of 50 LF-framed events with a CRLF-framed one after them', () => {
    // The cursor keeps where the next blank line of each framing is: both must be found again
    // once passed, whichever framing comes next.
    const body = `${words.map((w) => `data: ${chunk(w)}\n\n`).join('')}data: ${chunk('last')}\r\n\r\ndata: [DONE]\n\n`;
    const r = once(body);
    expect(r.facts).toMatchObject({ events: 51, tokens: 51, badEvents: 0, done: true, afterDone: 0 });
    expect(r.text).toBe(`${words.join('')}last`);
  });

  it('reads 50 CRLF-framed events, then LF ones, in one piece', () => {
    const crlf = words.map((w) => `data: ${chunk(w)}\r\n\r\n`).join('');
    const lf = words.map((w) => `data: ${chunk(w.toUpperCase())}\n\n`).join('');
    const r = once(crlf + lf);
    expect(r.facts).toMatchObject({ events: 100, tokens: 100, badEvents: 0 });
    expect(r.text).toBe(words.join('') + words.map((w) => w.toUpperCase()).join(''));
  });
});
