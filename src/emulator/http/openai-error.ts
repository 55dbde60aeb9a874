import type { OpenAiErrorDetail } from '../policy/policy.js';

/** The OpenAI error `type` for each status the /openai/* routes answer with. */
const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'server_error',
};

/** The error object as OpenAI sends it: `{"error":{"message","type","param","code"}}`. */
export function openAiError(
  status: number,
  message: string,
  detail: OpenAiErrorDetail = {},
): { error: Record<string, unknown> } {
  return {
    error: {
      message,
      type: TYPES[status] ?? 'invalid_request_error',
      param: detail.param ?? null,
      code: detail.code ?? null,
    },
  };
}
