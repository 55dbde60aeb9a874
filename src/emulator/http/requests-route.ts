import type { ServerResponse } from 'node:http';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import { sendError, sendJson } from './reply.js';

/**
 * GET `/v2/<endpointId>/requests`: the endpoint's latest requests, newest first (jobstorm's shape,
 * README "GET /requests"), rate-limited per the `/requests` row of the table.
 */
export function answerRequests(core: EmulatorCore, res: ServerResponse, ep: Endpoint): void {
  const policy = core.policy;
  const error = policy.serverError(core.rng);
  if (error !== undefined) {
    sendError(res, 500, error);
    return;
  }
  const admission = ep.limiter.admit(
    'requests',
    core.now(),
    ep.runningWorkers(),
    policy.limiterMode('requests'),
  );
  if (!admission.ok) {
    const retryAfter = String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
    const what =
      admission.reason === 'rate'
        ? `${String(admission.limit)} requests per 10 s`
        : `${String(admission.limit)} concurrent requests`;
    sendError(
      res,
      429,
      `rate limit of /requests exceeded (${what} for this endpoint); retry after ${retryAfter} s`,
      policy.retryAfterHeader(retryAfter),
    );
    return;
  }
  sendJson(res, policy.answerStatus(200, 'queue'), { requests: policy.requestsList(ep.recentRequests()) });
  ep.limiter.release('requests');
}
