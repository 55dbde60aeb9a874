import { isJobId } from '../job-id.js';
import { defineFault } from './fault.js';

export const unknownJobFound = defineFault(
  'unknown-job-found',
  '/status of a job id the emulator never issued answers 200 with status FAILED ("job not found") instead of 404',
  ['request.unknown-job'],
  (base) => ({
    // Ids of the emulator's own shape keep their 404.
    unknownJob: (jobId) =>
      isJobId(jobId) ? base.unknownJob(jobId) : { id: jobId, status: 'FAILED', error: 'job not found' },
  }),
);
