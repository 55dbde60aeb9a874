import { ServerResponse } from 'node:http';
import { request } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index.js';
import { chunkEnds, openAiBatchEnds, type LlmRun } from '../../src/emulator/llm-run.js';
import { agent, call, expectStatus, manualEmulator, status, submit, until } from './helpers.js';

/*
 * Issue 48 item 6: the emulator's model-like worker. With prefill 2 ms a prompt token, decode
 * 10 ms a token and a 100-word prompt, the first token is out 200 ms after the job starts and
 * token i at 200 + (i − 1) × 10 ms: these are the known truths the token-timing metrics are
 * compared with, so every time below is exact, on the manual clock.
 */

const PROMPT = Array.from({ length: 100 }, (_, i) => `word${String(i)}`).join(' ');
const LLM = { prefillMsPerInputToken: 2, decodeMsPerToken: 10, decodeSlowdownPerJob: 0.5, concurrency: 4 };
const PROFILE = { name: 'llm-test', llm: LLM };
/** ms after the start when token i (1-based) is out. */
const tokenAt = (i: number): number => 200 + (i - 1) * 10;

interface StreamChunk {
  choices: { tokens: string[] }[];
  usage: { input: number; output: number };
}

async function takeStream(h: EmulatorHandle, id: string): Promise<StreamChunk[]> {
  const r = await call(h, 'GET', `${h.url}/stream/${id}`);
  expectStatus(r, 200);
  return (r.body as { stream: { output: StreamChunk }[] }).stream.map((s) => s.output);
}

async function startedAt(h: EmulatorHandle): Promise<number> {
  const r = await call(h, 'GET', `${h.url}/requests`);
  const first = (r.body as { requests: { startedAt?: number }[] }).requests[0];
  if (first?.startedAt === undefined) throw new Error('the job has not started');
  return first.startedAt;
}

/** Moves the manual clock to `at` (emulator ms). */
function advanceTo(clock: ManualClock, at: number): void {
  clock.advance(at - clock.now());
}

/** An SSE answer read as it comes, split into its `data:` payloads. */
async function openStream(h: EmulatorHandle, path: string, body: Record<string, unknown>) {
  const res = await request(`${h.url}/openai/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  expect(res.statusCode).toBe(200);
  let text = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (piece: string) => (text += piece));
  const ended = new Promise<void>((r) => res.body.on('end', () => r()));
  const events = (): string[] =>
    text
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice('data: '.length));
  const tokens = (): number =>
    events().filter((e) => e !== '[DONE]' && /"(content|text)":"[^"]/.test(e)).length;
  return { events, tokens, ended };
}

/**
 * Whatever the server wrote before this returns has reached the client: a round trip on another
 * connection is answered after bytes already written on the stream's (loopback, one event loop).
 */
async function settle(h: EmulatorHandle): Promise<void> {
  await call(h, 'GET', `${h.url}/health`);
  await call(h, 'GET', `${h.url}/health`);
}

describe('the model-like worker (profile llm)', () => {
  it('/stream: chunks of 1, 3, 9, 7 tokens, each out when its last token is, with cumulative usage', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1, profile: PROFILE });
    try {
      const id = await submit(h, { prompt: PROMPT, sampling_params: { max_tokens: 20 }, stream: true });
      const start = await startedAt(h);
      const sizes: number[] = [];
      for (const last of [1, 4, 13, 20]) {
        advanceTo(clock, start + tokenAt(last) - 1);
        expect(await takeStream(h, id), `nothing new 1 ms before token ${String(last)}`).toEqual([]);
        clock.advance(1);
        const chunks = await takeStream(h, id);
        expect(chunks).toHaveLength(1);
        const chunk = chunks[0] as StreamChunk;
        expect(chunk.usage).toEqual({ input: 100, output: last });
        sizes.push(chunk.choices[0]?.tokens.length ?? 0);
      }
      expect(sizes).toEqual([1, 3, 9, 7]);
      const done = (await status(h, id)).body as {
        status: string;
        executionTime: number;
        output: StreamChunk[];
      };
      expect(done.status).toBe('COMPLETED');
      expect(done.executionTime).toBe(tokenAt(20));
      expect(done.output.map((c) => c.usage.output)).toEqual([1, 4, 13, 20]);
      expect(done.output[0]?.choices[0]?.tokens).toEqual(['lorem ']);
    } finally {
      await h.close();
    }
  });

  it('without stream the job yields one chunk with the whole text; the input overrides the chunking', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1, profile: PROFILE });
    try {
      const id = await submit(h, { messages: [{ role: 'user', content: 'one two three' }], max_tokens: 3 });
      clock.advance(6 + 2 * 10);
      const done = (await status(h, id)).body as { status: string; output: StreamChunk[] };
      expect(done.status).toBe('COMPLETED');
      expect(done.output).toEqual([
        { choices: [{ tokens: ['lorem ipsum dolor '] }], usage: { input: 3, output: 3 } },
      ]);
    } finally {
      await h.close();
    }
    const run = (batching: LlmRun['batching']): LlmRun => ({
      promptTokens: 1,
      outputTokens: 10,
      prefillMs: 0,
      decodeMs: 1,
      stream: true,
      batching,
      openaiBatching: true,
    });
    expect(chunkEnds(run({ min: 2, growth: 2, max: 4 }))).toEqual([2, 6, 10]);
    // Not dynamic (growth 1): every chunk holds max_batch_size, as the worker does.
    expect(chunkEnds(run({ min: 1, growth: 1, max: 3 }))).toEqual([3, 6, 9, 10]);
    // Fractional sizes (1, 1.5, 2.25, …): a chunk closes once it holds at least the size.
    expect(chunkEnds(run({ min: 1, growth: 1.5, max: 50 }))).toEqual([1, 3, 6, 10]);
    // An /openai job has no `stream` in its input, yet its events are batched as streamed ones.
    const openai = { ...run({ min: 2, growth: 2, max: 4 }), stream: false };
    expect(chunkEnds(openai)).toEqual([10]);
    expect(openAiBatchEnds(openai)).toEqual([2, 6, 10]);
    expect(openAiBatchEnds({ ...openai, openaiBatching: false })).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('/openai chat stream: the first token at start + prefill, then one event every decode step, and the usage chunk when asked', async () => {
    // Each token's own time is the point: one write a token (the worker's batches would hold
    // tokens 2 to 4 until token 4; the test below covers them).
    const { h, clock } = await manualEmulator({
      workersMin: 1,
      profile: { ...PROFILE, llm: { ...LLM, openaiBatching: false } },
    });
    try {
      const s = await openStream(h, 'chat/completions', {
        model: 'm',
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: 20,
        stream: true,
        stream_options: { include_usage: true },
      });
      const start = await startedAt(h);
      for (let k = 1; k <= 20; k++) {
        advanceTo(clock, start + tokenAt(k) - 1);
        await settle(h);
        expect(s.tokens(), `1 ms before token ${String(k)}`).toBe(k - 1);
        clock.advance(1);
        await until(() => s.tokens() === k, `token ${String(k)} at ${String(tokenAt(k))} ms`);
      }
      await s.ended;
      const events = s.events();
      expect(events.at(-1)).toBe('[DONE]');
      const usage = JSON.parse(events.at(-2) ?? '') as Record<string, unknown>;
      expect(usage.choices).toEqual([]);
      expect(usage.object).toBe('chat.completion.chunk');
      expect(usage.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
      expect(events.at(-3)).toContain('"finish_reason":"length"');
    } finally {
      await h.close();
    }
  });

  it("/openai chat stream: the token events in the worker's batches, one write a batch at its last token; openaiBatching false: one a token; the same events either way", async () => {
    const batched = await openAiWrites({}, [1, 4, 13, 40, 90, 100]);
    expect(batched.sizes).toEqual([1, 3, 9, 27, 50, 10]);
    const perToken = await openAiWrites(
      { openaiBatching: false },
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    expect(perToken.sizes).toEqual(Array.from({ length: 100 }, () => 1));
    expect(batched.events).toEqual(perToken.events);
    const events = batched.events;
    expect(events).toHaveLength(1 + 100 + 3);
    expect(events[0]).toContain('"delta":{"role":"assistant","content":""}');
    expect(events.slice(1, 4).map((e) => (JSON.parse(e) as ChatChunk).choices[0]?.delta.content)).toEqual([
      'lorem ',
      'ipsum ',
      'dolor ',
    ]);
    expect(events.at(-3)).toContain('"finish_reason":"length"');
    expect(events.at(-2)).toContain(
      '"usage":{"prompt_tokens":100,"completion_tokens":100,"total_tokens":200}',
    );
    expect(events.at(-1)).toBe('[DONE]');
  });

  it('/openai completions stream: no usage chunk unless asked; an unstreamed answer carries the same counts', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1, profile: PROFILE });
    try {
      const s = await openStream(h, 'completions', {
        model: 'm',
        prompt: PROMPT,
        max_tokens: 5,
        stream: true,
      });
      const start = await startedAt(h);
      advanceTo(clock, start + tokenAt(1) - 1);
      await settle(h);
      expect(s.tokens()).toBe(0);
      clock.advance(1);
      await until(() => s.tokens() === 1, 'the first token at the prefill');
      advanceTo(clock, start + tokenAt(5));
      await s.ended;
      expect(s.tokens()).toBe(5);
      expect(s.events().some((e) => e.includes('"usage"'))).toBe(false);

      const pending = call(h, 'POST', `${h.url}/openai/v1/completions`, {
        body: { model: 'm', prompt: PROMPT, max_tokens: 5 },
      });
      await until(async () => (await inProgress(h)) === 1, 'the job');
      clock.advance(tokenAt(5));
      const r = await pending;
      expectStatus(r, 200);
      expect((r.body as { usage: unknown }).usage).toEqual({
        prompt_tokens: 100,
        completion_tokens: 5,
        total_tokens: 105,
      });
    } finally {
      await h.close();
    }
  });

  it('two jobs on one worker: the second decodes at 10 × (1 + 0.5 × 1) = 15 ms a token; past concurrency a job waits', async () => {
    const { h, clock } = await manualEmulator({
      workersMin: 1,
      workersMax: 1,
      profile: { name: 'llm-test', llm: { ...LLM, concurrency: 2 } },
    });
    try {
      const input = { prompt: PROMPT, max_tokens: 20 };
      const a = await submit(h, input);
      const b = await submit(h, input);
      const c = await submit(h, input);
      const health = (await call(h, 'GET', `${h.url}/health`)).body as {
        jobs: { inProgress: number; inQueue: number };
        workers: { running: number };
      };
      expect(health.jobs).toMatchObject({ inProgress: 2, inQueue: 1 });
      expect(health.workers.running).toBe(1);
      clock.advance(2000);
      const view = async (id: string) =>
        (await status(h, id)).body as { status: string; delayTime: number; executionTime: number };
      expect(await view(a)).toMatchObject({ status: 'COMPLETED', delayTime: 0, executionTime: 390 });
      expect(await view(b)).toMatchObject({
        status: 'COMPLETED',
        delayTime: 0,
        executionTime: 200 + 19 * 15,
      });
      // c starts when a ends, beside b: two jobs on the worker again.
      expect(await view(c)).toMatchObject({
        status: 'COMPLETED',
        delayTime: 390,
        executionTime: 200 + 19 * 15,
      });
    } finally {
      await h.close();
    }
  });

  it('cold start: a new worker loads the model before its first job; the next job starts at once', async () => {
    const { h, clock } = await manualEmulator({
      workersMin: 0,
      workersMax: 1,
      profile: { name: 'llm-test', llm: { ...LLM, coldStartMs: 3000 } },
    });
    try {
      const input = { prompt: 'ten words of prompt one two three four five six', max_tokens: 2 };
      const first = await submit(h, input);
      clock.advance(2999);
      const health = (await call(h, 'GET', `${h.url}/health`)).body as { workers: { initializing: number } };
      expect(health.workers.initializing).toBe(1);
      expect(((await status(h, first)).body as { status: string }).status).toBe('IN_QUEUE');
      clock.advance(1 + 20 + 10);
      expect((await status(h, first)).body).toMatchObject({
        status: 'COMPLETED',
        delayTime: 3000,
        executionTime: 30,
      });
      const second = await submit(h, input);
      clock.advance(30);
      expect((await status(h, second)).body).toMatchObject({
        status: 'COMPLETED',
        delayTime: 0,
        executionTime: 30,
      });
    } finally {
      await h.close();
    }
  });

  it('a bad vLLM input fails the job naming the key', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1, profile: 'llm' });
    try {
      const id = await submit(h, { prompt: 'hi', sampling_params: { max_tokens: 0 } });
      clock.advance(1);
      const view = (await status(h, id)).body as { status: string; error: string };
      expect(view.status).toBe('FAILED');
      expect(view.error).toMatch(/input\.sampling_params\.max_tokens/);
    } finally {
      await h.close();
    }
  });

  it('a bad llm setting is refused with an error naming the field', async () => {
    // As a profile file would hold it: JSON the type checker cannot see.
    const unknownKey = JSON.parse('{"llm":{"decodeMs":5}}') as EmulatorOptions['profile'];
    await expect(
      startEmulator({ clock: 'manual', profile: { llm: { decodeMsPerToken: -1 } } }),
    ).rejects.toThrow(ConfigError);
    await expect(
      startEmulator({ clock: 'manual', profile: { llm: { decodeMsPerToken: -1 } } }),
    ).rejects.toThrow(/profile\.llm\.decodeMsPerToken/);
    await expect(startEmulator({ clock: 'manual', profile: unknownKey })).rejects.toThrow(
      /profile\.llm: Unrecognized key: "decodeMs"/,
    );
    const { h } = await manualEmulator();
    try {
      const r = await call(h, 'PUT', `${h.adminUrl}/profile`, { body: { llm: { concurrency: 0 } } });
      expectStatus(r, 400);
      expect(r.text).toMatch(/llm\.concurrency/);
    } finally {
      await h.close();
    }
  });
});

interface ChatChunk {
  choices: { delta: { content?: string } }[];
}

/** Token events (a non-empty content or text) in one SSE write. */
function tokenEvents(chunk: unknown): number {
  if (typeof chunk !== 'string') return 0;
  return chunk.split('\n\n').filter((e) => /^data: .*"(content|text)":"[^"]/.test(e)).length;
}

/**
 * A streamed 100-token chat completion on the manual clock, moved to 1 ms before and then to the
 * time of each token in `ends` (cumulative): nothing is written before, and exactly one write with
 * the tokens since the last end at that time. The token events in each write, and every event the
 * client read (with the answer's id and creation time, which differ between runs, taken out).
 */
async function openAiWrites(
  settings: Record<string, unknown>,
  ends: readonly number[],
): Promise<{ sizes: number[]; events: string[] }> {
  const { h, clock } = await manualEmulator({
    workersMin: 1,
    profile: { ...PROFILE, llm: { ...LLM, ...settings } },
  });
  const write = vi.spyOn(ServerResponse.prototype, 'write');
  try {
    const s = await openStream(h, 'chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
    const start = await startedAt(h);
    let seen = write.mock.calls.length;
    const newWrites = (): number[] => {
      const counts = write.mock.calls.slice(seen).map((args) => tokenEvents(args[0]));
      seen = write.mock.calls.length;
      return counts.filter((n) => n > 0);
    };
    const sizes: number[] = [];
    for (const end of ends) {
      advanceTo(clock, start + tokenAt(end) - 1);
      expect(newWrites(), `1 ms before token ${String(end)}`).toEqual([]);
      clock.advance(1);
      const now = newWrites();
      expect(now, `at token ${String(end)}`).toHaveLength(1);
      sizes.push(now[0] ?? 0);
    }
    await s.ended;
    const events = s
      .events()
      .map((e) => e.replace(/"id":"[^"]*","object":"([^"]*)","created":\d+/, '"object":"$1"'));
    return { sizes, events };
  } finally {
    write.mockRestore();
    await h.close();
  }
}

async function inProgress(h: EmulatorHandle): Promise<number> {
  const r = await call(h, 'GET', `${h.url}/health`);
  return (r.body as { jobs: { inProgress: number } }).jobs.inProgress;
}
