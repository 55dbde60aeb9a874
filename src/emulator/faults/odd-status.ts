import { defineFault } from './fault.js';

export const oddStatus = defineFault(
  'odd-status',
  'every 200 answer of the /v2 queue operations and the /v1 management calls is sent as 202, and a management 400 as 422 (bodies unchanged)',
  [
    'status.run',
    'status.runsync',
    'status.status',
    'status.status-sync',
    'status.stream',
    'status.cancel',
    'status.retry',
    'status.purge-queue',
    'status.health',
    'status.openai',
    'status.requests',
    'status.StartPod',
    'status.CreateEndpoint',
    'management.openapi',
  ],
  (base) => ({
    answerStatus: (status, api) => {
      if (status === 200) return 202;
      // 422: a code neither management operation declares.
      if (api === 'management' && status === 400) return 422;
      return base.answerStatus(status, api);
    },
  }),
);
