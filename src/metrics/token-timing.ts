import type { OutputFacts } from '../core/record.js';

/**
 * One streamed answer's token timings, under the formula of the tool a user compares with. The LLM
 * benchmarks disagree (issue 48): vLLM `bench serve` pools every gap between chunks as ITL and
 * takes TPOT = (e2e − TTFT)/(N − 1); AIPerf's ITL is that per-request quotient; GuideLLM's ITL is
 * the same quotient and its TPOT counts the first token, e2e/N. jobstorm's own ITL spreads each
 * chunk's gap over the tokens it carried: a chunk of 8 tokens 80 ms after the one before is eight
 * gaps of 10 ms, the only per-token reading a batched stream allows (the tokens inside one chunk
 * arrived together, so their own gaps are not observable). docs/llm.md gives each formula.
 */
export { TOKEN_DEFINITIONS, type TokenDefinition } from '../core/token-definition.js';
import type { TokenDefinition } from '../core/token-definition.js';

/** A chunk of a streamed answer: when it arrived, and how many output tokens it carried. */
export interface TokenChunk {
  at: number;
  tokens: number;
}

export interface TokenTimeline {
  /** When the request was sent, ms. */
  sentAt: number;
  /** The chunks that carried output, in arrival order (a chunk of 0 tokens is not one). */
  chunks: readonly TokenChunk[];
  /** When the answer ended (its last byte), ms. */
  endAt: number;
}

export interface TokenTimings {
  /** Send → first output chunk. */
  ttftMs: number;
  /** Send → end of the answer. */
  e2eMs: number;
  outputTokens: number;
  /** Time per output token; null for a single-token answer where the formula divides by N − 1. */
  tpotMs: number | null;
  /** The inter-token latencies this answer adds to the run's distribution (pooled across answers). */
  itlMs: number[];
  /** Output tokens per second of this answer, over its whole e2e. */
  tokensPerSecond: number | null;
}

/** The timings of one answer, or undefined when it carried no output. */
export function tokenTimings(t: TokenTimeline, definition: TokenDefinition): TokenTimings | undefined {
  const first = t.chunks[0];
  if (first === undefined) return undefined;
  const outputTokens = t.chunks.reduce((n, c) => n + c.tokens, 0);
  const ttftMs = first.at - t.sentAt;
  const e2eMs = t.endAt - t.sentAt;
  const decode = outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null;
  const base = {
    ttftMs,
    e2eMs,
    outputTokens,
    tokensPerSecond: e2eMs > 0 ? (outputTokens * 1000) / e2eMs : null,
  };
  switch (definition) {
    case 'jobstorm':
      return { ...base, tpotMs: decode, itlMs: spreadGaps(t.chunks) };
    case 'vllm':
      return { ...base, tpotMs: decode, itlMs: chunkGaps(t.chunks) };
    case 'aiperf':
      return { ...base, tpotMs: decode, itlMs: decode === null ? [] : [decode] };
    case 'guidellm':
      return { ...base, tpotMs: e2eMs / outputTokens, itlMs: decode === null ? [] : [decode] };
  }
}

/** vLLM: each gap between two successive chunks is one inter-token latency, whatever it carried. */
function chunkGaps(chunks: readonly TokenChunk[]): number[] {
  return chunks.slice(1).map((c, i) => c.at - (chunks[i]?.at ?? c.at));
}

/** jobstorm: a chunk of n tokens after a gap g is n latencies of g/n. */
function spreadGaps(chunks: readonly TokenChunk[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < chunks.length; i++) {
    const c = chunks[i];
    const before = chunks[i - 1];
    if (c === undefined || before === undefined || c.tokens === 0) continue;
    const each = (c.at - before.at) / c.tokens;
    for (let k = 0; k < c.tokens; k++) out.push(each);
  }
  return out;
}

/** How an answer's output was counted: the server's tokens, or streamed chunks (deltas). */
export type OutputCount = 'tokens' | 'chunks';

/**
 * One answer's timeline from what its records say (`OutputFacts`, one part per record: an OpenAI
 * stream is one, a job read through `/stream` one per read). Token counts come from the server
 * where it gave them, in this order: a cumulative `usage` on every part (the tokens of each part
 * are its rise, spread over the part's arrivals by their pieces), else token lists, else a final
 * usage total spread over the deltas; otherwise the pieces are chunks and the answer is counted
 * in chunks, all of it, never part tokens and part chunks. `endAt` is the answer's last byte (an
 * OpenAI stream), else its last arrival.
 */
export function outputTimeline(
  sentAt: number,
  parts: readonly OutputFacts[],
  endAt?: number,
): { timeline: TokenTimeline; counted: OutputCount } | undefined {
  const arrivals = parts.flatMap((p) => p.arrivals);
  const last = arrivals.at(-1);
  if (last === undefined) return undefined;
  const counted = countedIn(parts);
  const chunks: TokenChunk[] = [];
  let before = 0;
  for (const p of parts) {
    const pieces = p.arrivals.reduce((n, [, k]) => n + k, 0);
    const total = p.usageTokens;
    // A part's tokens: its usage's rise when counted by usage, else what its pieces say.
    const tokens =
      counted === 'tokens' && p.unit === 'chunks' && total !== undefined ? total - before : pieces;
    if (total !== undefined) before = Math.max(before, total);
    for (const [at, k] of p.arrivals) {
      const share = pieces > 0 ? (k * tokens) / pieces : 0;
      if (share > 0) chunks.push({ at, tokens: share });
    }
  }
  return { timeline: { sentAt, chunks, endAt: Math.max(endAt ?? last[0], last[0]) }, counted };
}

/** Tokens when every part's count is the server's (a token list or a usage), else chunks. */
function countedIn(parts: readonly OutputFacts[]): OutputCount {
  return parts.every((p) => p.unit === 'tokens' || p.usageTokens !== undefined) ? 'tokens' : 'chunks';
}
