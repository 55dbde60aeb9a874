import type { JobstormRecord } from '../../src/core/record.js';
import { ex, job } from './records.js';

/** Job w, submitted with a webhook at 0 and shown COMPLETED by a /status answer ending at 1000. */
export const done = job('w', 'COMPLETED', { delayTime: 10, executionTime: 20, output: {} });
export const submit = ex('run', 0, 200, job('w', 'IN_QUEUE'), {
  jobId: 'w',
  req: { webhook: 'http://127.0.0.1:1/webhook' },
});
export const final = ex('status', 1000, 200, done, { jobId: 'w' });
/** A record whose end is `endAt`: the latest time the check has seen. */
export const until = (endAt: number): JobstormRecord =>
  ex('health', endAt - 5, 200, {
    jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
    workers: { idle: 1, running: 0 },
  });
