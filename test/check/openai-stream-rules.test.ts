import { describe, expect, it } from 'vitest';
import { openAiStreamCheck } from '../../src/check/checks/openai-stream-check.js';
import type { JobstormRecord, SseFacts } from '../../src/core/record.js';
import type { RequestError } from '../../src/core/request-error.js';
import { outcome } from './check-outcome.js';
import { ex } from './records.js';

/*
 * `schema.openai-stream` on saved records (issue 39): each way a stream's framing can be wrong,
 * alone, and a read we cut short ourselves.
 */

const only = (records: JobstormRecord[]) => outcome(records, { checks: [openAiStreamCheck] });

const chunk = {
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' } }],
};
const error = { error: { message: 'overloaded', type: 'server_error', param: null, code: null } };

function streamed(first: unknown, sse: Partial<SseFacts> = {}, failed?: RequestError): JobstormRecord {
  return ex('openai', 0, 200, first, {
    path: '/openai/v1/chat/completions',
    sse: { events: 3, tokens: 2, badEvents: 0, done: true, afterDone: 0, ...sse },
    ...(failed ? { error: failed } : {}),
  });
}

const problems = (r: JobstormRecord) => only([r]).messages('schema.openai-stream');

describe('schema.openai-stream', () => {
  it('passes a stream of completion chunks ended by data: [DONE], or one that begins with an error object', () => {
    const o = only([streamed(chunk), streamed(error)]);
    expect(o.fired).toEqual({});
    expect(o.judged['schema.openai-stream']).toBe(2);
  });

  it('passes a stream with no event to read', () => {
    expect(problems(streamed(undefined, { events: 0, tokens: 0 }))).toEqual([]);
  });

  it('quotes the first event that is not JSON', () => {
    expect(problems(streamed(chunk, { events: 5, badEvents: 2, badExample: 'oops' }))).toEqual([
      'streamed /openai/v1/chat/completions: 2 of 5 events are not JSON (first: "oops")',
    ]);
  });

  it('says when the first event is neither a completion chunk nor an error object', () => {
    expect(problems(streamed({ object: 'list' }))).toEqual([
      'streamed /openai/v1/chat/completions: the first event is neither a completion chunk nor an error object',
    ]);
  });

  it('wants data: [DONE] at the end of a stream the server ended, not of one we cut short', () => {
    expect(problems(streamed(chunk, { done: false }))).toEqual([
      'streamed /openai/v1/chat/completions: the stream ended after 3 events without data: [DONE]',
    ]);
    expect(problems(streamed(chunk, { done: false }, { kind: 'timeout' }))).toEqual([]);
  });

  it('says how many events came after data: [DONE]', () => {
    expect(problems(streamed(chunk, { afterDone: 2 }))).toEqual([
      'streamed /openai/v1/chat/completions: 2 events came after data: [DONE]',
    ]);
  });

  it('judges only streamed answers', () => {
    const o = only([ex('openai', 0, 200, { object: 'list', data: [] }, { path: '/openai/v1/models' })]);
    expect(o.judged['schema.openai-stream']).toBeUndefined();
  });
});
