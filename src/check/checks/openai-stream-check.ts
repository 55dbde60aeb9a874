import { OpenAiErrorSchema, OpenAiStreamEventSchema } from '../../../contracts/queue/openai-schemas.js';
import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';

/**
 * `schema.openai-stream`: a streamed `/openai/*` answer is framed as OpenAI's server-sent events:
 * every event's data parses as JSON (and the first is a completion chunk or an error object), the
 * stream ends with `data: [DONE]`, and nothing comes after it. A read we cut short ourselves
 * (timeout, abort, reset) proves nothing about the end of the stream, so only its events are judged.
 */
export const openAiStreamCheck: Check = {
  name: 'openai-stream',
  ids: ['schema.openai-stream'],
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.op !== 'openai' || r.sse === undefined) return;
    const s = r.sse;
    const problems: string[] = [];
    if (s.badEvents > 0)
      problems.push(
        `${String(s.badEvents)} of ${String(s.events)} events are not JSON (first: ${JSON.stringify(s.badExample ?? '')})`,
      );
    if (
      r.body !== undefined &&
      !OpenAiStreamEventSchema.safeParse(r.body).success &&
      !OpenAiErrorSchema.safeParse(r.body).success
    ) {
      problems.push('the first event is neither a completion chunk nor an error object');
    }
    if (r.error === undefined && !s.done)
      problems.push(`the stream ended after ${String(s.events)} events without data: [DONE]`);
    if (s.afterDone > 0) problems.push(`${String(s.afterDone)} events came after data: [DONE]`);
    const v = ctx.judge('schema.openai-stream', problems.length > 0);
    if (v)
      ctx.emit(v, {
        record: r,
        message: `streamed ${r.path}: ${problems.join('; ')}`,
      });
  },
};
