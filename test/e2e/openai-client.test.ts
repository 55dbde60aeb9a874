import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';

/*
 * Issue 48, "proven, not claimed": the official `openai` npm client, unchanged, reads the streams
 * of the emulator's model-like worker (profile `llm`) over a real socket on the real clock. Only
 * its baseURL (the endpoint's `/openai/v1`) and API key are set. The decode is 2 ms a token and
 * there is no prefill or model load, so each answer takes a few tens of ms; the assertions are on
 * what the client parsed, never on wall-clock time. The streams come in the worker's batches (the
 * default openaiBatching: 1, 3, then 8 events a write), which the client splits into events.
 */

const MODEL = 'jobstorm-llm';
/** Seven whitespace-separated words: the emulator counts each as a prompt token. */
const PROMPT = 'Write one short line about queues please';
const PROMPT_WORDS = PROMPT.split(' ').length;
/** Sent as `max_completion_tokens` to chat (`max_tokens` is deprecated there) and `max_tokens` to text. */
const MAX_TOKENS = 12;

/**
 * One finish event. vLLM says `length` when max_tokens cut the answer, the emulator `stop`; the
 * client takes either, and which one is the emulator's fidelity, not the client's reading.
 */
function expectOneFinish(finishes: readonly string[]): void {
  expect(finishes).toHaveLength(1);
  expect(['stop', 'length']).toContain(finishes[0]);
}

describe('the official openai client reads the llm worker unchanged', () => {
  let h: EmulatorHandle;
  let client: OpenAI;

  beforeAll(async () => {
    h = await startEmulator({
      host: '127.0.0.1',
      port: 0,
      workersMin: 1,
      workersMax: 1,
      coldStartMs: 0,
      profile: {
        name: 'llm-e2e',
        llm: { prefillMsPerInputToken: 0, decodeMsPerToken: 2, coldStartMs: 0, concurrency: 4 },
      },
    });
    client = new OpenAI({ baseURL: `${h.url}/openai/v1`, apiKey: h.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('streams a chat completion: one content delta per token, then the usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      max_completion_tokens: MAX_TOKENS,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    const finishes: string[] = [];
    const usages: OpenAI.CompletionUsage[] = [];
    let roles = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(typeof chunk.id).toBe('string');
      if (chunk.usage) usages.push(chunk.usage);
      for (const choice of chunk.choices) {
        if (choice.delta.role === 'assistant') roles++;
        if (choice.delta.content) deltas.push(choice.delta.content);
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
    }
    expect(roles).toBe(1);
    expect(deltas).toHaveLength(MAX_TOKENS);
    const text = deltas.join('');
    expect(text.trim().split(/\s+/)).toHaveLength(MAX_TOKENS);
    expectOneFinish(finishes);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({
      prompt_tokens: PROMPT_WORDS,
      completion_tokens: MAX_TOKENS,
      total_tokens: PROMPT_WORDS + MAX_TOKENS,
    });
  });

  it('streams a text completion: one text delta per token, then the usage chunk', async () => {
    const stream = await client.completions.create({
      model: MODEL,
      prompt: PROMPT,
      max_tokens: MAX_TOKENS,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    const finishes: string[] = [];
    const usages: OpenAI.CompletionUsage[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe('text_completion');
      if (chunk.usage) usages.push(chunk.usage);
      for (const choice of chunk.choices) {
        if (choice.text) deltas.push(choice.text);
        // The client types a text choice's finish_reason as always set; streamed, it is null until the end.
        const finish = choice.finish_reason as string | null;
        if (finish !== null) finishes.push(finish);
      }
    }
    expect(deltas).toHaveLength(MAX_TOKENS);
    expect(deltas.join('').trim().split(/\s+/)).toHaveLength(MAX_TOKENS);
    expectOneFinish(finishes);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({
      prompt_tokens: PROMPT_WORDS,
      completion_tokens: MAX_TOKENS,
      total_tokens: PROMPT_WORDS + MAX_TOKENS,
    });
  });

  it('answers an unstreamed chat completion with the message and its usage', async () => {
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: PROMPT }],
      max_completion_tokens: MAX_TOKENS,
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices).toHaveLength(1);
    const content = answer.choices[0]?.message.content ?? '';
    expect(answer.choices[0]?.message.role).toBe('assistant');
    expect(content.trim().split(/\s+/)).toHaveLength(MAX_TOKENS);
    expect(answer.usage).toMatchObject({
      prompt_tokens: PROMPT_WORDS,
      completion_tokens: MAX_TOKENS,
      total_tokens: PROMPT_WORDS + MAX_TOKENS,
    });
  });
});
