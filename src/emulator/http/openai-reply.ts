import type { ServerResponse } from 'node:http';
import type { EmulatorPolicy, OpenAiErrorDetail } from '../policy/policy.js';
import { sendJson } from './reply.js';

export { openAiError } from './openai-error.js';
export type { OpenAiErrorDetail } from '../policy/policy.js';

/** Answers an /openai/* error in the body the policy gives. */
export function sendOpenAiError(
  res: ServerResponse,
  policy: EmulatorPolicy,
  status: number,
  message: string,
  detail: OpenAiErrorDetail = {},
  extra?: Record<string, string>,
): void {
  sendJson(res, status, policy.openAiErrorBody(status, message, detail), extra);
}
