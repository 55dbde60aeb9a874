import { defineFault } from './fault.js';

export const openaiAfterDone = defineFault(
  'openai-after-done',
  'streamed /openai/* answers send one more chunk event after data: [DONE]',
  ['schema.openai-stream'],
  (base) => {
    const end = { ...base.streamEnd(), chunkAfter: true };
    return { streamEnd: () => end };
  },
);
