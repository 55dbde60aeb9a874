import { chunkEnds, tokenAtMs, tokenText, type LlmRun } from './llm-run.js';

/*
 * The model-like worker's output chunks, in the vLLM worker's shape:
 * `{"choices":[{"tokens":[…]}],"usage":{"input":<prompt tokens>,"output":<tokens so far>}}`.
 * A chunk is out when its last token is (worker-vllm yields a batch once it is full), so /stream
 * hands out only chunks that exist at the time of the call.
 */

export interface LlmChunk {
  choices: { tokens: string[] }[];
  usage: { input: number; output: number };
}

/** Chunks out `elapsedMs` after the job's start. */
export function llmChunksReady(run: LlmRun, elapsedMs: number): number {
  const ends = chunkEnds(run);
  let ready = 0;
  while (ready < ends.length && tokenAtMs(run, ends[ready] as number) <= elapsedMs) ready++;
  return ready;
}

/** Chunks `from` to `to` (exclusive, cut at the last one). */
export function llmChunks(run: LlmRun, from: number, to: number): LlmChunk[] {
  const ends = chunkEnds(run);
  const out: LlmChunk[] = [];
  for (let c = from; c < Math.min(to, ends.length); c++) {
    const first = c === 0 ? 0 : (ends[c - 1] as number);
    const last = ends[c] as number;
    const tokens: string[] = [];
    for (let i = first; i < last; i++) tokens.push(tokenText(i));
    // Without `stream` the worker sends its whole text as one piece.
    out.push({
      choices: [{ tokens: run.stream ? tokens : [tokens.join('')] }],
      usage: { input: run.promptTokens, output: last },
    });
  }
  return out;
}
