import { isFinalStatus } from '../../core/job-status.js';
import { defineFault } from './fault.js';

export const ttlIgnored = defineFault(
  'ttl-ignored',
  'policy.ttl and /status?ttl= are not enforced: jobs outlive their ttl (retention still applies)',
  ['lifecycle.ttl-ignored'],
  (base) => ({
    // A deadline that is the ttl's moves to the end of retention (never, while the job is not final).
    ttlExtension: (job, now, retentionEnd) => {
      if (job.expiresAt === job.ttlAt) {
        const later = isFinalStatus(job.status) ? retentionEnd : Infinity;
        if (later > now) return later;
      }
      return base.ttlExtension(job, now, retentionEnd);
    },
  }),
);
