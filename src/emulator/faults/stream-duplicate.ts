import type { Job } from '../job.js';
import { defineFault } from './fault.js';

/** Where each job's previous answer's new pieces began (they are sent again). */
const lastFrom = new WeakMap<Job, number>();

export const streamDuplicate = defineFault(
  'stream-duplicate',
  'every streamed chunk is delivered twice: in the answer where it is new and again in the next /stream answer',
  (base) => ({
    streamStart: (job, from, produced) => {
      const start = Math.min(base.streamStart(job, from, produced), lastFrom.get(job) ?? from);
      lastFrom.set(job, from);
      return start;
    },
  }),
);
