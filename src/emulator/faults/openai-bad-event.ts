import { defineFault } from './fault.js';

export const openaiBadEvent = defineFault(
  'openai-bad-event',
  'in streamed /openai/* answers the first token event is cut short, so its data is not JSON',
  ['schema.openai-stream'],
  (base) => ({
    tokenEvent: (n, json) => (n === 1 ? json.slice(0, json.length >> 1) : base.tokenEvent(n, json)),
  }),
);
