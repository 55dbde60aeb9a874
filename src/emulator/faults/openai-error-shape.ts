import { defineFault } from './fault.js';

export const openaiErrorShape = defineFault(
  'openai-error-shape',
  '4xx answers of /openai/* carry {"error": "<message>"} instead of the OpenAI error object',
  ['schema.openai'],
  () => ({ openAiErrorBody: (_status, message) => ({ error: message }) }),
);
