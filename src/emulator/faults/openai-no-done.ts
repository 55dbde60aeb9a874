import { defineFault } from './fault.js';

export const openaiNoDone = defineFault(
  'openai-no-done',
  'streamed /openai/* answers end without the final data: [DONE] event',
  ['schema.openai-stream'],
  (base) => {
    const end = { ...base.streamEnd(), done: false };
    return { streamEnd: () => end };
  },
);
