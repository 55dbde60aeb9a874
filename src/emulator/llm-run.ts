import type { LlmSettings } from './llm-settings.js';

/*
 * One job as the model-like worker runs it (see llm-settings.ts for the law): its token counts,
 * its timings fixed at start, and how its /stream chunks are cut. Everything a /stream or /openai
 * answer says about the job is computed from this, so both faces tell the same story.
 */

/** Tokens generated when the request gives no max_tokens (OpenAI's and vLLM's default). */
export const DEFAULT_TOKENS = 16;
/** Most tokens one request may ask for, so a typo cannot keep a worker busy for hours. */
export const MAX_TOKENS = 4096;

export interface ChunkBatching {
  min: number;
  growth: number;
  max: number;
}

export interface LlmRun {
  promptTokens: number;
  outputTokens: number;
  /** ms from the job's start to its first token. */
  prefillMs: number;
  /** ms between two tokens, the worker's load included. */
  decodeMs: number;
  /** vLLM's `stream`: chunks as tokens come; otherwise one chunk with the whole text at the end. */
  stream: boolean;
  batching: ChunkBatching;
  /** A streamed /openai answer's token events written in `batching`'s batches; else one a write. */
  openaiBatching: boolean;
}

/** The job's run, or the message of the input problem that fails it (as the worker's validation would). */
export function planLlmRun(
  input: Record<string, unknown>,
  llm: LlmSettings,
  running: number,
): LlmRun | string {
  const problem = llmInputProblem(input);
  if (problem !== undefined) return problem;
  const sampling = isRecord(input.sampling_params) ? input.sampling_params : {};
  const asked = numberOr(sampling.max_tokens, numberOr(input.max_tokens, DEFAULT_TOKENS));
  const given = input.prompt_tokens;
  const promptTokens = typeof given === 'number' ? given : promptWords(input);
  return {
    promptTokens,
    outputTokens: Math.min(MAX_TOKENS, asked),
    prefillMs: promptTokens * llm.prefillMsPerInputToken,
    decodeMs: llm.decodeMsPerToken * (1 + llm.decodeSlowdownPerJob * Math.max(0, running - 1)),
    stream: input.stream === true,
    batching: {
      min: numberOr(input.min_batch_size, llm.minBatchSize),
      growth: numberOr(input.batch_size_growth_factor, llm.batchSizeGrowthFactor),
      max: numberOr(input.max_batch_size, llm.maxBatchSize),
    },
    openaiBatching: llm.openaiBatching,
  };
}

/** ms after the job's start when token `i` (1-based) is generated; the prefill for i = 0. */
export function tokenAtMs(run: LlmRun, i: number): number {
  return Math.round(run.prefillMs + Math.max(0, i - 1) * run.decodeMs);
}

/** The job ends with its last token. */
export function llmDurationMs(run: LlmRun): number {
  return tokenAtMs(run, run.outputTokens);
}

/**
 * Cumulative token counts at the end of each /stream chunk, as the vLLM worker cuts them
 * (batchEnds). Without `stream`, one chunk at the end.
 */
export function chunkEnds(run: LlmRun): number[] {
  return run.stream ? batchEnds(run.outputTokens, run.batching) : [run.outputTokens];
}

/** Every batch one token: the batching rule's non-dynamic case with a size of 1. */
const ONE_BY_ONE: ChunkBatching = { min: 1, growth: 1, max: 1 };

/**
 * Cumulative token counts at the end of each write of a streamed /openai answer. The vLLM worker
 * batches the OpenAI server's events as it batches /stream chunks, whatever the job's `stream`
 * (the request's own `stream` asked for the events), so the batches are the streamed ones.
 */
export function openAiBatchEnds(run: LlmRun): number[] {
  return batchEnds(run.outputTokens, run.openaiBatching ? run.batching : ONE_BY_ONE);
}

/**
 * Cumulative token counts at the end of each batch of `n` tokens, as the vLLM worker cuts them:
 * with dynamic batching (growth > 1, min ≥ 1, max > min) a batch closes once it holds the current
 * size, which starts at min and is multiplied by growth after every batch, up to max; otherwise
 * every batch holds max. The last batch holds the rest.
 */
function batchEnds(n: number, batching: ChunkBatching): number[] {
  const { min, growth, max } = batching;
  const dynamic = growth > 1 && min >= 1 && max > min;
  let size = dynamic ? min : max;
  const ends: number[] = [];
  let inChunk = 0;
  for (let i = 1; i <= n; i++) {
    inChunk++;
    if (inChunk < size) continue;
    ends.push(i);
    inChunk = 0;
    if (dynamic) size = Math.min(size * growth, max);
  }
  if (inChunk > 0) ends.push(n);
  return ends;
}

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit'];

/** The i-th (0-based) generated token: a word and a space, so the text reads as words. */
export function tokenText(i: number): string {
  return `${WORDS[i % WORDS.length] ?? 'x'} `;
}

/** Tokens of a prompt: its whitespace-separated words (a `{{text:…}}` prompt is one token a word). */
export function promptWords(body: Record<string, unknown>): number {
  if (typeof body.prompt === 'string') return wordCount(body.prompt);
  if (Array.isArray(body.prompt)) return sumWords(body.prompt);
  if (!Array.isArray(body.messages)) return 0;
  let n = 0;
  for (const m of body.messages) if (isRecord(m)) n += contentWords(m.content);
  return n;
}

/** A message's content: a string, or parts of which the text ones count. */
function contentWords(content: unknown): number {
  if (typeof content === 'string') return wordCount(content);
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) if (isRecord(part) && typeof part.text === 'string') n += wordCount(part.text);
  return n;
}

function sumWords(list: unknown[]): number {
  let n = 0;
  for (const s of list) if (typeof s === 'string') n += wordCount(s);
  return n;
}

function wordCount(text: string): number {
  let n = 0;
  for (const w of text.split(/\s+/)) if (w !== '') n++;
  return n;
}

/** Keys the worker reads that must be positive numbers, and whether they must be whole. */
const NUMERIC_KEYS: [string, boolean][] = [
  ['max_tokens', true],
  ['prompt_tokens', true],
  ['max_batch_size', false],
  ['min_batch_size', false],
  ['batch_size_growth_factor', false],
];

function llmInputProblem(input: Record<string, unknown>): string | undefined {
  const sampling = input.sampling_params;
  if (sampling !== undefined && !isRecord(sampling)) return 'input.sampling_params must be an object';
  const places: [string, Record<string, unknown>][] = [['input', input]];
  if (isRecord(sampling)) places.push(['input.sampling_params', { max_tokens: sampling.max_tokens }]);
  for (const [where, obj] of places) {
    for (const [key, whole] of NUMERIC_KEYS) {
      const v = obj[key];
      if (v === undefined) continue;
      const ok = typeof v === 'number' && Number.isFinite(v) && (whole ? Number.isInteger(v) : true);
      const min = key === 'prompt_tokens' ? 0 : key === 'max_tokens' ? 1 : 0;
      if (!ok || v < min)
        return `${where}.${key} must be a ${whole ? 'whole ' : ''}number of at least ${String(min)}, got ${JSON.stringify(v)}`;
    }
  }
  if (input.stream !== undefined && typeof input.stream !== 'boolean')
    return 'input.stream must be a boolean';
  return undefined;
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
