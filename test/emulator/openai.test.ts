import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChatCompletionSchema,
  ModelListSchema,
  OpenAiErrorSchema,
  RequestsListSchema,
  TextCompletionSchema,
} from '../../contracts/queue/openai-schemas.js';
import { HealthResponseSchema } from '../../contracts/queue/schemas.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { agent, call, manualEmulator, openAiEvents, submit, until, valid } from './helpers.js';
import { manualTarget } from '../helpers/manual-target.js';

/*
 * Issue 18: the OpenAI-compatible routes and GET /requests. The official `openai` npm client,
 * unchanged, talks to the emulator with only its baseURL and API key set.
 */

const CHAT = { model: 'jobstorm-chat', messages: [{ role: 'user' as const, content: 'Say something.' }] };

describe('the official openai client against the emulator', () => {
  let h: EmulatorHandle;
  let client: OpenAI;

  beforeAll(async () => {
    // Jobs take 600 ms, so a streamed answer's tokens are spread over that time.
    h = await startEmulator({
      workersMin: 2,
      workersMax: 2,
      coldStartMs: 0,
      profile: { duration: { kind: 'fixed', ms: 600 } },
    });
    client = new OpenAI({ baseURL: `${h.url}/openai/v1`, apiKey: h.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('completes a chat completion; the call was a job on the queue (counted in /health)', async () => {
    const before = valid(HealthResponseSchema, (await call(h, 'GET', `${h.url}/health`)).body).jobs.completed;
    const answer = await client.chat.completions.create({ ...CHAT, max_completion_tokens: 5 });
    valid(ChatCompletionSchema, answer);
    expect(answer.choices[0]?.message.content?.trim().split(' ')).toHaveLength(5);
    expect(answer.choices[0]?.finish_reason).toBe('stop');
    expect(answer.usage?.completion_tokens).toBe(5);
    const after = valid(HealthResponseSchema, (await call(h, 'GET', `${h.url}/health`)).body).jobs.completed;
    expect(after).toBe(before + 1);
  });

  it('completes a streamed chat completion: chunks over the job time, then the end', async () => {
    // Its own emulator on a manual clock (issue 46): the tokens' spacing is the job's, exactly.
    const m = await manualTarget({
      workersMin: 2,
      workersMax: 2,
      profile: { duration: { kind: 'fixed', ms: 600 } },
    });
    const streaming = new OpenAI({
      baseURL: `${m.emulator.url}/openai/v1`,
      apiKey: m.emulator.apiKey,
      maxRetries: 0,
    });
    const arrivals: number[] = [];
    let text = '';
    let finish: string | null | undefined;
    try {
      await m.driver.run(
        (async () => {
          const stream = await streaming.chat.completions.create({
            ...CHAT,
            max_completion_tokens: 6,
            stream: true,
          });
          for await (const chunk of stream) {
            expect(chunk.object).toBe('chat.completion.chunk');
            const delta = chunk.choices[0]?.delta.content ?? '';
            if (delta !== '') arrivals.push(m.clock.now());
            text += delta;
            finish = chunk.choices[0]?.finish_reason ?? finish;
          }
        })(),
      );
    } finally {
      await m.emulator.close();
    }
    expect(text.trim().split(' ')).toHaveLength(6);
    expect(finish).toBe('stop');
    // Six tokens over a 600 ms job: 100 ms apart (all at once would be 0 apart).
    expect(arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? 0))).toEqual([100, 100, 100, 100, 100]);
  });

  it('completes a text completion and lists the model', async () => {
    const answer = await client.completions.create({ model: 'jobstorm-chat', prompt: 'Once', max_tokens: 3 });
    valid(TextCompletionSchema, answer);
    expect(answer.choices[0]?.text.trim().split(' ')).toHaveLength(3);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['jobstorm']);
    valid(ModelListSchema, (await call(h, 'GET', `${h.url}/openai/v1/models`)).body);
  });

  it('a wrong key is refused with an AuthenticationError carrying the OpenAI error object', async () => {
    const wrong = new OpenAI({ baseURL: `${h.url}/openai/v1`, apiKey: 'not-the-key', maxRetries: 0 });
    const err = await wrong.chat.completions.create(CHAT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
  });
});

describe('the /openai/* routes', () => {
  it('answer malformed requests and unknown routes with the OpenAI error object naming the problem', async () => {
    const { h } = await manualEmulator();
    try {
      const noMessages = await call(h, 'POST', `${h.url}/openai/v1/chat/completions`, {
        body: { model: 'm' },
      });
      expect(noMessages.status).toBe(400);
      expect(valid(OpenAiErrorSchema, noMessages.body).error).toMatchObject({
        type: 'invalid_request_error',
        param: 'messages',
      });
      const notJson = await call(h, 'POST', `${h.url}/openai/v1/completions`, {
        raw: '{',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      valid(OpenAiErrorSchema, notJson.body);
      const unknown = await call(h, 'POST', `${h.url}/openai/v1/embeddings`, { body: { model: 'm' } });
      expect(unknown.status).toBe(404);
      expect(valid(OpenAiErrorSchema, unknown.body).error.message).toMatch(/chat\/completions/);
      const wrongMethod = await call(h, 'GET', `${h.url}/openai/v1/chat/completions`);
      expect(wrongMethod.status).toBe(404);
      const noKey = await call(h, 'GET', `${h.url}/openai/v1/models`, { auth: null });
      expect(noKey.status).toBe(401);
      valid(OpenAiErrorSchema, noKey.body);
    } finally {
      await h.close();
    }
  });

  it('stream tokens at even steps of the job execution time, on the injected clock', async () => {
    const { h, clock } = await manualEmulator({
      workersMin: 1,
      profile: { duration: { kind: 'fixed', ms: 1000 } },
    });
    try {
      const res = await request(`${h.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...CHAT, stream: true, max_tokens: 4 }),
        dispatcher: agent,
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const seen: string[] = [];
      res.body.setEncoding('utf8');
      res.body.on('data', (piece: string) => seen.push(piece));
      const tokensSoFar = (): number =>
        seen
          .join('')
          .split('\n\n')
          .filter((e) => e.includes('"content":"') && !e.includes('"content":""')).length;
      await until(() => seen.join('').includes('"role":"assistant"'), 'the role event');
      expect(tokensSoFar()).toBe(0);
      clock.advance(250);
      await until(() => tokensSoFar() === 1, 'the first token at 250 ms');
      clock.advance(500);
      await until(() => tokensSoFar() === 3, 'the third token at 750 ms');
      clock.advance(250);
      await until(() => seen.join('').endsWith('data: [DONE]\n\n'), 'the end');
      expect(tokensSoFar()).toBe(4);
      expect(seen.join('')).toContain('"finish_reason":"stop"');
    } finally {
      await h.close();
    }
  });

  it('a client that closes a streamed request cancels its job and frees the concurrency slot', async () => {
    const { h, clock } = await manualEmulator({
      workersMin: 1,
      profile: { duration: { kind: 'fixed', ms: 10_000 } },
    });
    try {
      const controller = new AbortController();
      const res = await request(`${h.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...CHAT, stream: true }),
        dispatcher: agent,
        signal: controller.signal,
      });
      expect(res.statusCode).toBe(200);
      const listed = valid(RequestsListSchema, (await call(h, 'GET', `${h.url}/requests`)).body).requests;
      expect(listed.map((r) => r.status)).toEqual(['IN_PROGRESS']);
      controller.abort();
      await res.body.text().catch(() => undefined);
      await until(
        async () =>
          valid(RequestsListSchema, (await call(h, 'GET', `${h.url}/requests`)).body).requests[0]?.status ===
          'CANCELLED',
        'the job cancelled',
      );
      const state = (await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`)).body as {
        rateLimits: Record<string, { inFlight: number }>;
      };
      expect(state.rateLimits.openai?.inFlight).toBe(0);
      expect(
        valid(HealthResponseSchema, (await call(h, 'GET', `${h.url}/health`)).body).jobs.inProgress,
      ).toBe(0);
      clock.advance(20_000);
    } finally {
      await h.close();
    }
  });

  it('a job that fails ends the stream with an error event and [DONE]; unstreamed it is a 500 in the OpenAI shape', async () => {
    const { h, clock } = await manualEmulator({
      workersMin: 1,
      profile: { failureRate: 1, duration: { kind: 'fixed', ms: 10 } },
    });
    try {
      const events = await openAiEvents(h, clock, `${h.url}/openai/v1/chat/completions`, {
        ...CHAT,
        stream: true,
      });
      expect(events.at(-1)).toBe('[DONE]');
      expect(valid(OpenAiErrorSchema, JSON.parse(events.at(-2) ?? '')).error.message).toMatch(/FAILED/);
      const pending = call(h, 'POST', `${h.url}/openai/v1/chat/completions`, { body: CHAT });
      await until(
        async () =>
          valid(RequestsListSchema, (await call(h, 'GET', `${h.url}/requests`)).body).requests.length === 2,
        'the second job',
      );
      clock.advance(100);
      const r = await pending;
      expect(r.status).toBe(500);
      valid(OpenAiErrorSchema, r.body);
    } finally {
      await h.close();
    }
  });

  it('429 above 400 concurrent completions, in the OpenAI shape with a Retry-After', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1 });
    try {
      const url = `${h.url}/openai/v1/chat/completions`;
      const replies: Awaited<ReturnType<typeof call>>[] = [];
      const all = Array.from({ length: 401 }, () =>
        call(h, 'POST', url, { body: { ...CHAT, max_tokens: 1 } }).then((r) => replies.push(r)),
      );
      await until(() => replies.length === 1, 'the refusal');
      const refused = replies[0];
      expect(refused?.status).toBe(429);
      expect(refused?.headers['retry-after']).toBe('1');
      expect(valid(OpenAiErrorSchema, refused?.body).error).toMatchObject({
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
      });
      await until(
        async () =>
          ((await call(h, 'GET', `${h.adminUrl}/endpoints/jobstorm`)).body as { jobsRetained: number })
            .jobsRetained === 400,
        'every admitted job',
      );
      clock.advance(60_000);
      await Promise.all(all);
      expect(replies.filter((r) => r.status === 200)).toHaveLength(400);
    } finally {
      await h.close();
    }
  }, 30_000);
});

describe('GET /requests', () => {
  it('lists the latest 100 requests newest first, with id, status and times', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 1, workersMax: 1 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) {
        ids.push(await submit(h, { sleep_ms: i === 104 ? 100_000 : 0 }));
        clock.advance(1);
      }
      const list = valid(RequestsListSchema, (await call(h, 'GET', `${h.url}/requests`)).body).requests;
      expect(list).toHaveLength(100);
      expect(list.map((r) => r.id)).toEqual(ids.slice(5).reverse());
      const oldest = list.at(-1);
      expect(oldest).toMatchObject({ status: 'COMPLETED', createdAt: 5 });
      expect(oldest?.finishedAt).toBeGreaterThanOrEqual(oldest?.startedAt ?? Infinity);
      expect(list[0]).toMatchObject({ status: 'IN_PROGRESS', createdAt: 104, startedAt: 104 });
      expect(list[0]?.finishedAt).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  it('is limited to 10 per 10 s, raised by running workers × requestsPerWorker', async () => {
    const { h, clock } = await manualEmulator({ workersMin: 3, workersMax: 3, requestsPerWorker: 5 });
    try {
      const accepted = async (n: number): Promise<number> => {
        let ok = 0;
        for (let i = 0; i < n; i++) {
          const r = await call(h, 'GET', `${h.url}/requests`);
          if (r.status === 200) ok++;
          else {
            expect(r.status).toBe(429);
            expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
          }
        }
        return ok;
      };
      expect(await accepted(12)).toBe(10);
      clock.advance(10_001);
      // Three running workers × 5 = 15 per 10 s.
      for (let i = 0; i < 3; i++) await submit(h, { sleep_ms: 60_000 });
      expect(await accepted(17)).toBe(15);
    } finally {
      await h.close();
    }
  });
});
