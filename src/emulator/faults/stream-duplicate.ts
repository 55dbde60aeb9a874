import { isFinalStatus } from '../../core/job-status.js';
import type { Job } from '../job.js';
import { defineFault } from './fault.js';

/** Where each job's previous answer's new pieces began (they are sent again). */
const lastFrom = new WeakMap<Job, number>();
/**
 * Jobs that have had their answer while final: after it the stream is drained, and a chunk sent
 * again then would also be a chunk after the final answer, a rule of another fault.
 */
const finalAnswered = new WeakSet<Job>();

export const streamDuplicate = defineFault(
  'stream-duplicate',
  'every streamed chunk is delivered twice: in the answer where it is new and again in the next /stream answer, up to the answer that says the job is final',
  ['stream.duplicate-chunk'],
  (base) => ({
    streamStart: (job, from, produced) => {
      const start = base.streamStart(job, from, produced);
      if (finalAnswered.has(job)) return start;
      if (isFinalStatus(job.status)) finalAnswered.add(job);
      const repeated = Math.min(start, lastFrom.get(job) ?? from);
      lastFrom.set(job, from);
      return repeated;
    },
  }),
);
