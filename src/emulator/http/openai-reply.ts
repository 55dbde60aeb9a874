import type { ServerResponse } from 'node:http';
import type { FaultSet } from '../faults.js';
import { sendError, sendJson } from './reply.js';

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

export interface OpenAiErrorDetail {
  param?: string | null;
  code?: string | null;
}

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

/** Answers an /openai/* error; the openai-error-shape fault sends the queue API's `{"error": "..."}` instead. */
export function sendOpenAiError(
  res: ServerResponse,
  faults: FaultSet,
  status: number,
  message: string,
  detail?: OpenAiErrorDetail,
  extra?: Record<string, string>,
): void {
  if (faults.openaiErrorShape) sendError(res, status, message, extra);
  else sendJson(res, status, openAiError(status, message, detail), extra);
}
