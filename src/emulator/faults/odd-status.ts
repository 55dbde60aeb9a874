import { defineFault } from './fault.js';

export const oddStatus = defineFault(
  'odd-status',
  'every 200 answer of the /v2 queue operations and the /v1 management calls is sent as 202, and a management 400 as 422 (bodies unchanged)',
  (base) => ({
    answerStatus: (status, api) => {
      if (status === 200) return 202;
      // 422: a code neither management operation declares.
      if (api === 'management' && status === 400) return 422;
      return base.answerStatus(status, api);
    },
  }),
);
