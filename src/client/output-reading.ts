import type { OutputFacts } from '../core/record.js';

/*
 * How much generated output an answer carried, read the way LLM workers send it
 * (docs/llm.md, "What a chunk is"):
 * - the vLLM worker's `/stream` chunk `{choices: [{tokens: [...]}], usage: {output}}`: its token
 *   lists are tokens, and `usage.output` is the server's cumulative count;
 * - OpenAI chunk events (`choices[].delta.content` or `choices[].text`), parsed or as the raw SSE
 *   text the worker concatenates into one chunk: a delta each, unless they carry a cumulative
 *   `usage.completion_tokens` (vLLM's continuous usage), and a final usage event's total;
 * - anything else a chunk holds is one chunk of output.
 */

/** What one piece of streamed output counted as. */
interface PieceCount {
  /** Output pieces in it. */
  pieces: number;
  /** Whether `pieces` are tokens (a token list) rather than deltas or chunks. */
  tokens: boolean;
  /** A cumulative `usage` count of output tokens it carried. */
  usage: number | undefined;
}

/**
 * The streamed output an answer carried: an OpenAI stream's, as its reader gathered it, or a
 * `/stream` read's (its chunks, arrived at `endAt`); undefined for other answers.
 */
export function answerOutput(
  op: string,
  sse: { output: OutputTally } | undefined,
  body: unknown,
  endAt: number,
): OutputFacts | undefined {
  if (sse !== undefined) return sse.output.facts();
  return op === 'stream' ? streamOutput(body, endAt) : undefined;
}

/** The output of one `/stream` answer, arrived at `at`; undefined when it carried none. */
export function streamOutput(body: unknown, at: number): OutputFacts | undefined {
  const chunks = streamChunks(body);
  if (chunks.length === 0) return undefined;
  let pieces = 0;
  let allTokens = true;
  let usage: number | undefined;
  for (const chunk of chunks) {
    for (const c of chunkCounts(chunk)) {
      pieces += c.pieces;
      allTokens &&= c.tokens;
      if (c.usage !== undefined) usage = Math.max(usage ?? 0, c.usage);
    }
  }
  const facts: OutputFacts = { unit: allTokens ? 'tokens' : 'chunks', arrivals: [[at, pieces]] };
  if (usage !== undefined) facts.usageTokens = usage;
  return facts;
}

/** The chunks of a `/stream` answer: `{stream: [{output}, ...]}` or the spec's bare array. */
function streamChunks(body: unknown): unknown[] {
  const list = Array.isArray(body) ? body : (body as { stream?: unknown } | null | undefined)?.stream;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) =>
    typeof item === 'object' && item !== null && 'output' in item ? item.output : item,
  );
}

/** The pieces of output in one chunk's output (several when it holds several OpenAI events). */
function chunkCounts(output: unknown): PieceCount[] {
  // The worker's own chunk first: it has `choices` too, with token lists instead of deltas.
  const lists = tokenLists(output);
  const usage = usageOutput(output);
  if (lists !== undefined) return [{ pieces: lists, tokens: true, usage }];
  if (typeof output === 'string' && output.includes('data:')) return sseTextCounts(output);
  if (Array.isArray(output) && output.length > 0 && output.every(isOpenAiEvent))
    return output.map(openAiEventCount);
  if (isOpenAiEvent(output)) return [openAiEventCount(output)];
  return [{ pieces: 1, tokens: false, usage }];
}

/** Tokens in `choices[].tokens` lists (the vLLM worker's chunk), or undefined without such lists. */
function tokenLists(output: unknown): number | undefined {
  const choices = (output as { choices?: unknown } | null | undefined)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  let n = 0;
  for (const c of choices) {
    const tokens = (c as { tokens?: unknown } | null)?.tokens;
    if (!Array.isArray(tokens)) return undefined;
    n += tokens.length;
  }
  return n;
}

/** The vLLM worker's cumulative `usage.output`. */
function usageOutput(output: unknown): number | undefined {
  const v = (output as { usage?: { output?: unknown } } | null | undefined)?.usage?.output;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Raw SSE text holding OpenAI events (`data: {...}` blocks; `[DONE]` and bad JSON are not output). */
function sseTextCounts(text: string): PieceCount[] {
  const out: PieceCount[] = [];
  for (const line of text.split('\n')) {
    const data = line.startsWith('data:') ? line.slice(5).trim() : '';
    if (data === '' || data === '[DONE]') continue;
    try {
      const event: unknown = JSON.parse(data);
      if (isOpenAiEvent(event)) out.push(openAiEventCount(event));
    } catch {
      // not an event's JSON: the checks judge the stream's framing, not this count
    }
  }
  return out;
}

function isOpenAiEvent(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'choices' in v && !Array.isArray(v);
}

/** One OpenAI chunk event as output. */
function openAiEventCount(event: unknown): PieceCount {
  const usage = completionTokens(event);
  return { pieces: eventText(event) === '' ? 0 : 1, tokens: false, usage };
}

/** `usage.completion_tokens` of an OpenAI event (cumulative in vLLM's continuous usage, else the final total). */
export function completionTokens(event: unknown): number | undefined {
  const v = (event as { usage?: { completion_tokens?: unknown } | null } | null | undefined)?.usage
    ?.completion_tokens;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The text a chat chunk (delta.content) or a completion chunk (text) carries; '' for none. */
export function eventText(event: unknown): string {
  const choice = (event as { choices?: unknown[] } | undefined)?.choices?.[0] as
    { delta?: { content?: unknown }; text?: unknown } | undefined;
  const text = choice?.delta?.content ?? choice?.text;
  return typeof text === 'string' ? text : '';
}

/**
 * The output of an OpenAI stream as its events arrive (the SSE reader feeds it): text events
 * read together (one socket read) are one arrival. Their pieces are tokens when every text event
 * carried a cumulative `usage.completion_tokens` (vLLM's continuous usage), else deltas; a final
 * usage event (no choices) gives the server's total.
 */
export class OutputTally {
  private readonly at: number[] = [];
  private readonly deltas: number[] = [];
  private readonly tokens: number[] = [];
  private everyUsage = true;
  private lastUsage = 0;
  private total: number | undefined;

  /** Takes one parsed event arrived at `at`; returns the text it carried ('' for none). */
  event(event: unknown, at: number): string {
    const usage = completionTokens(event);
    const text = eventText(event);
    if (text === '') {
      const choices = (event as { choices?: unknown }).choices;
      if (usage !== undefined && (!Array.isArray(choices) || choices.length === 0)) this.total = usage;
      return text;
    }
    this.text(usage, at);
    return text;
  }

  /** One event that carried text (and `usage`, its completion tokens, when it had them), arrived at `at`. */
  text(usage: number | undefined, at: number): void {
    const last = this.at.length - 1;
    if (last < 0 || this.at[last] !== at) {
      this.at.push(at);
      this.deltas.push(0);
      this.tokens.push(0);
    }
    const i = this.at.length - 1;
    this.deltas[i] = (this.deltas[i] ?? 0) + 1;
    if (usage === undefined) this.everyUsage = false;
    else {
      this.tokens[i] = (this.tokens[i] ?? 0) + Math.max(0, usage - this.lastUsage);
      this.lastUsage = Math.max(this.lastUsage, usage);
    }
  }

  /** What arrived, or undefined when no text did. */
  facts(): OutputFacts | undefined {
    if (this.at.length === 0) return undefined;
    const pieces = this.everyUsage ? this.tokens : this.deltas;
    const facts: OutputFacts = {
      unit: this.everyUsage ? 'tokens' : 'chunks',
      arrivals: this.at.map((t, i): [number, number] => [t, pieces[i] ?? 0]),
    };
    const total = this.total ?? (this.everyUsage ? this.lastUsage : undefined);
    if (total !== undefined) facts.usageTokens = total;
    return facts;
  }
}
