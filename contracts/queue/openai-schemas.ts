import { z } from 'zod';
import { JobStatusSchema } from './schemas.js';

/*
 * The OpenAI-compatible routes under `/openai/v1/*` (SPEC "Limits" names `/openai/*`; its shapes
 * are "not shown", so these follow the OpenAI API the official `openai` client reads). Responses
 * are loose, as everywhere in the contract: servers add fields.
 */

const nonNegInt = z.number().int().nonnegative();

const UsageSchema = z.looseObject({
  prompt_tokens: nonNegInt,
  completion_tokens: nonNegInt,
  total_tokens: nonNegInt,
});

/** POST /openai/v1/chat/completions without `stream`. */
export const ChatCompletionSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('chat.completion'),
  created: nonNegInt,
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: nonNegInt,
      message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable() }),
      finish_reason: z.string().nullable(),
    }),
  ),
  usage: UsageSchema.optional(),
});

/** POST /openai/v1/completions without `stream`. */
export const TextCompletionSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('text_completion'),
  created: nonNegInt,
  model: z.string(),
  choices: z.array(
    z.looseObject({ index: nonNegInt, text: z.string(), finish_reason: z.string().nullable() }),
  ),
  usage: UsageSchema.optional(),
});

/** GET /openai/v1/models. */
export const ModelListSchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      object: z.literal('model'),
      created: nonNegInt.optional(),
      owned_by: z.string().optional(),
    }),
  ),
});

/** One `data:` event of a streamed chat completion. */
export const ChatCompletionChunkSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('chat.completion.chunk'),
  created: nonNegInt,
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: nonNegInt,
      delta: z.looseObject({ role: z.string().optional(), content: z.string().nullable().optional() }),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
});

/** One `data:` event of a streamed text completion. */
export const TextCompletionChunkSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('text_completion'),
  created: nonNegInt,
  model: z.string(),
  choices: z.array(
    z.looseObject({ index: nonNegInt, text: z.string(), finish_reason: z.string().nullable().optional() }),
  ),
});

export const OpenAiStreamEventSchema = z.union([ChatCompletionChunkSchema, TextCompletionChunkSchema]);

export const OpenAiResponseSchema = z.union([ChatCompletionSchema, TextCompletionSchema, ModelListSchema]);

/** The OpenAI error shape: every 4xx of the `/openai/*` routes carries it. */
export const OpenAiErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string().min(1),
    type: z.string().min(1),
    param: z.string().nullable(),
    code: z.union([z.string(), z.number()]).nullable(),
  }),
});

const MessageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(z.unknown()), z.null()]),
});

/** What the emulator accepts on POST /openai/v1/chat/completions (and what the runner sends). */
export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(MessageSchema).min(1),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().min(1).optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
});

/** What the emulator accepts on POST /openai/v1/completions. */
export const CompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  prompt: z.union([z.string(), z.array(z.string())]),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().min(1).optional(),
});

/** Most entries GET /requests lists (newest first). */
export const REQUESTS_LIST_MAX = 100;

/**
 * GET /requests: the endpoint's most recent requests (jobs from /run, /runsync and /openai/*),
 * newest first, at most REQUESTS_LIST_MAX. Times are integer milliseconds on the service's clock.
 * The spec shows no shape; this is jobstorm's (README "GET /requests").
 */
export const RequestsListSchema = z.looseObject({
  requests: z
    .array(
      z.looseObject({
        id: z.string().min(1),
        status: JobStatusSchema,
        createdAt: nonNegInt,
        startedAt: nonNegInt.optional(),
        finishedAt: nonNegInt.optional(),
      }),
    )
    .max(REQUESTS_LIST_MAX),
});
