import { jobView } from '../job-view.js';
import { defineFault } from './fault.js';

export const webhookWrongStatus = defineFault(
  'webhook-wrong-status',
  'webhook bodies say FAILED (with an error) for COMPLETED jobs and COMPLETED (with output) for FAILED jobs',
  ['webhook.status-mismatch'],
  (base) => ({
    webhookView: (job, policy) => {
      if (job.status === 'COMPLETED')
        return {
          ...jobView(job, policy, 'FAILED'),
          error: 'handler failed (emulator fault webhook-wrong-status)',
        };
      if (job.status !== 'FAILED') return base.webhookView(job, policy);
      const view = jobView(job, policy, 'COMPLETED');
      delete view.error;
      return view;
    },
  }),
);
