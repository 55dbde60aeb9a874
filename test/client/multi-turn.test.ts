import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobClient } from '../../src/client/index.js';
import { systemClock } from '../../src/core/clock.js';
import { parseScenario } from '../../src/scenario/index.js';
import { openai, type OpenAiStep } from '../../src/steps/openai.js';
import type { ChatMessage, IterationState } from '../../src/steps/index.js';
import { sendJson, startServer, type TestServer } from './test-server.js';

/*
 * Issue 48 item 5: a multi-turn chat sends the conversation so far. A small foreign server (not
 * the emulator) answers each turn, streamed or not, with "answer <n>", and keeps what it was sent.
 */

let turns = 0;
let server: TestServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const body = JSON.parse(req.body.toString()) as { stream?: boolean };
    const reply = `answer ${String(++turns)}`;
    if (body.stream !== true) {
      sendJson(res, 200, {
        id: 'c',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: reply } }],
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of reply.split(/(?= )/))
      res.write(
        `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`,
      );
    res.end('data: [DONE]\n\n');
  });
});
afterAll(() => server.close());

function stepOf(yaml: string): OpenAiStep {
  const s = parseScenario(
    `name: t\nphases: [{ duration: 1s, rate: 1 }]\nflows:\n  - name: chat\n    steps:\n      - openai: ${yaml}\n`,
    't.yaml',
    { env: {} },
  );
  return s.flows[0]?.steps[0] as OpenAiStep;
}

/** Just what the openai step reads of an iteration. */
function iteration(conversation: ChatMessage[]): IterationState {
  const client = createJobClient({
    baseUrl: `${server.url}/v2/chat`,
    apiKey: 'k',
    auth: 'bearer',
    connections: 1,
    timeoutMs: 5000,
    clock: systemClock,
    onRecord: () => undefined,
  });
  return {
    ctx: { client, random: () => 0.5 },
    flow: { name: 'chat', inputs: new Map() },
    n: 1,
    row: undefined,
    conversation,
    call: () => ({}),
  } as unknown as IterationState;
}

const sent = (i: number): { messages: ChatMessage[] } =>
  JSON.parse(server.seen[i]?.body.toString() ?? '{}') as { messages: ChatMessage[] };

describe('openai conversation: true', () => {
  it("sends each turn after the earlier turns and the assistant's answers, streamed or not", async () => {
    turns = 0;
    server.seen.length = 0;
    const streamed = stepOf(
      '{ stream: true, conversation: true, body: { model: m, messages: [{ role: user, content: "hi" }] } }',
    );
    const plain = stepOf(
      '{ conversation: true, body: { model: m, messages: [{ role: user, content: "more" }] } }',
    );
    const it = iteration([]);
    await openai.run(streamed, it);
    await openai.run(plain, it);
    await openai.run(streamed, it);
    expect(sent(0).messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(sent(1).messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'answer 1' },
      { role: 'user', content: 'more' },
    ]);
    expect(sent(2).messages.map((m) => m.content)).toEqual(['hi', 'answer 1', 'more', 'answer 2', 'hi']);
    expect(it.conversation).toHaveLength(6);
  });

  it('leaves a step without it alone, and is refused off chat/completions', () => {
    expect(stepOf('{ body: { model: m, messages: [] } }').conversation).toBe(false);
    expect(() => stepOf('{ path: completions, conversation: true, body: { model: m, prompt: x } }')).toThrow(
      /a conversation is a chat: it needs path chat\/completions/,
    );
  });
});
