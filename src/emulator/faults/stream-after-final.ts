import { isFinalStatus } from '../../core/job-status.js';
import type { Job } from '../job.js';
import { defineFault } from './fault.js';

/** Jobs whose last /stream answer said final with nothing left: the next answers repeat the last chunk. */
const drained = new WeakSet<Job>();

export const streamAfterFinal = defineFault(
  'stream-after-final',
  'after a /stream answer said the job is final and left no chunks, every later /stream call returns its last chunk again',
  ['stream.after-final'],
  (base) => ({
    streamStart: (job, from, produced) => {
      const final = isFinalStatus(job.status);
      if (from >= produced && produced > 0 && final && drained.has(job)) return produced - 1;
      const start = base.streamStart(job, from, produced);
      if (final) drained.add(job);
      return start;
    },
  }),
);
