import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS } from '../../../contracts/queue/limits.js';
import { ChatRequestSchema, CompletionRequestSchema } from '../../../contracts/queue/openai-schemas.js';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import { OpenAiAnswer, type OpenAiRequest } from './openai-answer.js';
import { sendOpenAiError } from './openai-reply.js';
import type { Admission } from '../rate-limiter.js';
import { readJson, stalledMessage } from './json-body.js';
import { DEFAULT_TOKENS, MAX_TOKENS, promptWords } from '../llm-run.js';
import { describeIssues } from './params.js';
import { sendJson } from './reply.js';

export { DEFAULT_TOKENS, MAX_TOKENS } from '../llm-run.js';

interface OpenAiRoute {
  method: 'GET' | 'POST';
  kind?: 'chat' | 'text';
}

const ROUTES: Record<string, OpenAiRoute | undefined> = {
  'v1/chat/completions': { method: 'POST', kind: 'chat' },
  'v1/completions': { method: 'POST', kind: 'text' },
  'v1/models': { method: 'GET' },
};

const ROUTE_LIST = 'POST /openai/v1/chat/completions, POST /openai/v1/completions, GET /openai/v1/models';

/**
 * `/v2/<endpointId>/openai/v1/*`: the OpenAI-compatible face of the endpoint. Completions are jobs
 * on its queue (see OpenAiAnswer); every error is an OpenAI error object. Only POST counts against
 * the `/openai/*` row of the rate table (the table names POST; GET /models is answered at once).
 */
export class OpenAiRoutes {
  constructor(private readonly core: EmulatorCore) {}

  /** `rest` is the path after `/openai/`; a returned promise settles when reading the body is over. */
  handle(req: IncomingMessage, res: ServerResponse, ep: Endpoint, rest: string): Promise<void> | undefined {
    const policy = this.core.policy;
    const route = ROUTES[rest];
    if (route === undefined || route.method !== req.method) {
      sendOpenAiError(
        res,
        policy,
        404,
        `no route ${req.method ?? ''} /openai/${rest.slice(0, 200)} (routes: ${ROUTE_LIST})`,
        { code: 'unknown_url' },
      );
      req.resume();
      return;
    }
    const error = policy.serverError(this.core.rng);
    if (error !== undefined) {
      sendOpenAiError(res, policy, 500, error, { code: 'server_error' });
      req.resume();
      return;
    }
    if (route.kind === undefined) {
      sendJson(res, policy.answerStatus(200, 'queue'), {
        object: 'list',
        data: [{ id: ep.id, object: 'model', created: 0, owned_by: 'jobstorm-emulator' }],
      });
      return;
    }
    // Counted in the window now; the concurrency slot is taken once the body is in, as for /run.
    const mode = policy.limiterMode('openai');
    const admission = ep.limiter.admit('openai', this.core.now(), ep.runningWorkers(), mode, false);
    if (!admission.ok) {
      this.refuse(req, res, admission);
      return;
    }
    return this.complete(req, res, ep, route.kind);
  }

  private refuse(
    req: IncomingMessage,
    res: ServerResponse,
    admission: Exclude<Admission, { ok: true }>,
  ): void {
    const policy = this.core.policy;
    const retryAfter = String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
    const what =
      admission.reason === 'rate'
        ? `${String(admission.limit)} requests per 10 s`
        : `${String(admission.limit)} concurrent requests`;
    sendOpenAiError(
      res,
      policy,
      429,
      `rate limit of /openai/* exceeded (${what} for this endpoint); retry after ${retryAfter} s`,
      { code: 'rate_limit_exceeded' },
      policy.retryAfterHeader(retryAfter),
    );
    req.resume();
  }

  /** Reads the body, takes the concurrency slot and starts the answer, which then owns the slot. */
  private async complete(
    req: IncomingMessage,
    res: ServerResponse,
    ep: Endpoint,
    kind: 'chat' | 'text',
  ): Promise<void> {
    const policy = this.core.policy;
    const release = (): void => ep.limiter.release('openai');
    // The spec gives /openai/* no payload limit; a synchronous call gets /runsync's.
    const limit = LIMITS.runsyncPayload.surelyRejected - 1;
    const body = await readJson(req, limit, this.core.config.bodyTimeoutMs);
    if (body.kind === 'aborted') return;
    if (body.kind === 'stalled') {
      sendOpenAiError(
        res,
        policy,
        408,
        stalledMessage(body.ms),
        { code: 'timeout' },
        { connection: 'close' },
      );
      return;
    }
    const slot = ep.limiter.occupy('openai', policy.limiterMode('openai'));
    if (!slot.ok) {
      this.refuse(req, res, slot);
      return;
    }
    let handedOver = false;
    try {
      if (body.kind === 'too-large') {
        const message = `request body of ${String(body.bytes)} bytes exceeds the limit of ${String(limit)} bytes`;
        sendOpenAiError(res, policy, 413, message);
        return;
      }
      if (body.kind === 'invalid') {
        sendOpenAiError(res, policy, 400, body.message);
        return;
      }
      const request = this.request(res, kind, body.value);
      if (request === undefined) return;
      const input: Record<string, unknown> = {
        openai: kind === 'chat' ? 'chat/completions' : 'completions',
        max_tokens: request.tokens,
      };
      // The model-like worker's prefill needs the prompt's length; the prompt itself stays here.
      if (this.core.profile().llm !== undefined) input.prompt_tokens = request.promptTokens;
      const job = ep.submit({ input }, true);
      new OpenAiAnswer(this.core, ep, job, res, request, release).start();
      handedOver = true;
    } finally {
      if (!handedOver) release();
    }
  }

  /** The completion request the body asks for, or undefined once a 400 is answered. */
  private request(res: ServerResponse, kind: 'chat' | 'text', value: unknown): OpenAiRequest | undefined {
    const parsed = (kind === 'chat' ? ChatRequestSchema : CompletionRequestSchema).safeParse(value);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      sendOpenAiError(res, this.core.policy, 400, `invalid request: ${describeIssues(parsed.error.issues)}`, {
        param: first && first.path.length > 0 ? first.path.map(String).join('.') : null,
      });
      return undefined;
    }
    const data = parsed.data as {
      model: string;
      stream?: boolean;
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    const tokens = Math.min(MAX_TOKENS, data.max_tokens ?? data.max_completion_tokens ?? DEFAULT_TOKENS);
    const options = (parsed.data as { stream_options?: unknown }).stream_options;
    const includeUsage =
      typeof options === 'object' &&
      options !== null &&
      (options as { include_usage?: unknown }).include_usage === true;
    return {
      kind,
      model: data.model,
      tokens,
      promptTokens: this.promptTokens(parsed.data),
      stream: data.stream === true,
      includeUsage,
    };
  }

  /** The model-like worker counts a prompt's words; otherwise about four characters a token, OpenAI's rule of thumb. */
  private promptTokens(body: Record<string, unknown>): number {
    if (this.core.profile().llm !== undefined) return promptWords(body);
    const promptChars = JSON.stringify('messages' in body ? body.messages : body.prompt).length;
    return Math.ceil(promptChars / 4);
  }
}
