import { z } from 'zod';
import { isRecord } from '../scenario/raw-value.js';
import type { ChatMessage, StepRunner } from './iteration-state.js';
import { defineStep, type StepRules } from './step-kind.js';
import { renderTemplate, templateRules } from './template-rules.js';

export const OPENAI_PATHS = ['chat/completions', 'completions', 'models'] as const;

/** A call of the OpenAI-compatible API; `body` absent for the GET of `models`. */
export interface OpenAiStep {
  readonly kind: 'openai';
  readonly path: (typeof OPENAI_PATHS)[number];
  readonly body?: Readonly<Record<string, unknown>>;
  readonly stream: boolean;
  /** Send the iteration's conversation so far before this body's messages, and add this turn to it. */
  readonly conversation: boolean;
}

const OpenAiSchema = z
  .strictObject({
    path: z
      .enum(OPENAI_PATHS)
      .default('chat/completions')
      .describe(
        'The route under /openai/v1/: chat/completions and completions are POSTed with the body; models is a GET.',
      ),
    body: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'The request body as the OpenAI API takes it (model, messages or prompt, max_tokens...). String values may use {{row.field}}, {{trace.inputTokens}}, {{trace.outputTokens}}, {{trace.prompt}} (docs/replay.md), {{iteration}}, {{flow}}, {{random:min:max}}, {{length:<distribution>}} and {{text:<distribution>}} (docs/llm.md).',
      ),
    stream: z
      .boolean()
      .default(false)
      .describe(
        'Send stream: true and read the answer as server-sent events; records time to first token, inter-token latency and the output as it arrived (docs/llm.md).',
      ),
    conversation: z
      .boolean()
      .default(false)
      .describe(
        "A multi-turn chat: the iteration's earlier turns (their messages and the assistant's answers) go before this body's messages, and this turn's messages and answer are added for the next (a loop of this step is a conversation). chat/completions only.",
      ),
  })
  .superRefine((o, ctx) => {
    if (o.path === 'models' && (o.body !== undefined || o.stream))
      ctx.addIssue({
        code: 'custom',
        path: [o.body === undefined ? 'stream' : 'body'],
        message: 'openai path models is a GET: it takes no body and does not stream',
      });
    if (o.conversation && o.path !== 'chat/completions')
      ctx.addIssue({
        code: 'custom',
        path: ['conversation'],
        message: 'a conversation is a chat: it needs path chat/completions and a body with messages',
      });
    if (o.path !== 'models' && o.body === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['body'],
        message: `openai path ${o.path} needs a body (at least model and ${o.path === 'completions' ? 'prompt' : 'messages'})`,
      });
  })
  .describe(
    'POST /openai/v1/<path> (the OpenAI-compatible API): a completion that runs as a job on the endpoint.',
  )
  .transform((o): OpenAiStep => ({
    kind: 'openai',
    path: o.path,
    stream: o.stream,
    conversation: o.conversation,
    body: o.body,
  }));

const rules: StepRules = (payload, at, flow) =>
  isRecord(payload) && isRecord(payload.body) ? templateRules(payload.body, [...at, 'body'], flow) : [];

/**
 * `/openai/v1/<path>`: a completion (POST, the step's `stream` setting the body's `stream`) or the
 * model list (GET). It runs as a job on the endpoint, but its answer names no job of ours, so the
 * flow's job is left as it was; a refused call does not end the iteration.
 */
const complete: StepRunner<OpenAiStep> = async (step, it) => {
  const { client } = it.ctx;
  let body: Record<string, unknown> | undefined;
  if (step.body !== undefined) {
    body = renderTemplate(step.body, step, it);
    if (step.stream) body.stream = true;
    else delete body.stream;
  }
  const turn = step.conversation && body !== undefined ? withConversation(body, it.conversation) : undefined;
  const r = await client.openai(step.path, body, it.call('openai', undefined, false), step.conversation);
  // The next turn sends this one back: its messages and what the assistant said (nothing when it
  // did not answer: the conversation goes on from the user's side, as a retrying user's would).
  if (turn !== undefined)
    it.conversation.push(...turn, { role: 'assistant', content: r.streamedText ?? replyOf(r.body) });
  return true;
};

/** Puts the conversation so far before the body's messages; returns this turn's own messages. */
function withConversation(
  body: Record<string, unknown>,
  conversation: readonly ChatMessage[],
): ChatMessage[] {
  const own = Array.isArray(body.messages) ? body.messages.filter(isMessage) : [];
  body.messages = [...conversation, ...own];
  return own;
}

function isMessage(m: unknown): m is ChatMessage {
  return isRecord(m) && typeof m.role === 'string' && typeof m.content === 'string';
}

/** The assistant's answer in an unstreamed chat completion, '' when there is none. */
function replyOf(body: unknown): string {
  const choices = isRecord(body) ? body.choices : undefined;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const message = isRecord(first) ? first.message : undefined;
  return isRecord(message) && typeof message.content === 'string' ? message.content : '';
}

export const openai = defineStep({
  name: 'openai',
  example: { body: { model: 'm', messages: [] } },
  payload: () => OpenAiSchema,
  rules,
  run: complete,
  template: (step) => step.body,
});
