import type { ServerResponse } from 'node:http';
import type { EmulatorCore } from '../emulator-core.js';
import type { Endpoint } from '../endpoint.js';
import { sendError, sendJson } from './reply.js';

/**
 * GET `/v2/<endpointId>/requests`: the endpoint's latest requests, newest first (jobstorm's shape,
 * README "GET /requests"), rate-limited per the `/requests` row of the table.
 */
export function answerRequests(core: EmulatorCore, res: ServerResponse, ep: Endpoint): void {
  const faults = core.faults;
  if (faults.serverErrorRate > 0 && core.rng.next() < faults.serverErrorRate) {
    sendError(res, 500, 'internal server error (emulator fault server-errors)');
    return;
  }
  const admission = ep.limiter.admit('requests', core.now(), ep.runningWorkers(), {
    off: faults.no429,
    early: faults.early429,
    scale: faults.rateScale('requests'),
  });
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
      faults.badRetryAfter ? undefined : { 'retry-after': retryAfter },
    );
    return;
  }
  const requests = ep.recentRequests();
  // malformed-bodies: each entry's createdAt as a string.
  const body = faults.malformedBodies
    ? requests.map((r) => ({ ...r, createdAt: String(r.createdAt) }))
    : requests;
  sendJson(res, faults.oddStatus ? 202 : 200, { requests: body });
  ep.limiter.release('requests');
}
