import { early429 } from './early-429.js';
import { no429 } from './no-429.js';
import { cancelIgnored } from './cancel-ignored.js';
import { retryAny } from './retry-any.js';
import { purgeRunning } from './purge-running.js';
import { loseJobs } from './lose-jobs.js';
import { ttlIgnored } from './ttl-ignored.js';
import { timeoutIgnored } from './timeout-ignored.js';
import { wrongTypes } from './wrong-types.js';
import { backwardsStatus } from './backwards-status.js';
import { noWebhookRetry } from './no-webhook-retry.js';
import { oversizeAccepted } from './oversize-accepted.js';
import { authOpen } from './auth-open.js';
import { healthDrift } from './health-drift.js';
import { chunkTooLarge } from './chunk-too-large.js';
import { serverErrors } from './server-errors.js';
import { oddStatus } from './odd-status.js';
import { malformedBodies } from './malformed-bodies.js';
import { backwardsQueue } from './backwards-queue.js';
import { spuriousCancel } from './spurious-cancel.js';
import { retentionIgnored } from './retention-ignored.js';
import { timeoutEarly } from './timeout-early.js';
import { runsyncOverwait } from './runsync-overwait.js';
import { purgeMiscount } from './purge-miscount.js';
import { timingInflated } from './timing-inflated.js';
import { paramsUnchecked } from './params-unchecked.js';
import { badRetryAfter } from './bad-retry-after.js';
import { bareKeyRejected } from './bare-key-rejected.js';
import { noWebhook } from './no-webhook.js';
import { webhookWrongStatus } from './webhook-wrong-status.js';
import { webhookFastRetry } from './webhook-fast-retry.js';
import { webhookDuplicate } from './webhook-duplicate.js';
import { streamAfterFinal } from './stream-after-final.js';
import { streamDuplicate } from './stream-duplicate.js';
import { healthNegative } from './health-negative.js';
import { healthDecrease } from './health-decrease.js';
import { missingRoutes } from './missing-routes.js';
import { streamPostOnly } from './stream-post-only.js';
import { unknownJobFound } from './unknown-job-found.js';
import { inputOptional } from './input-optional.js';
import { slowExecution } from './slow-execution.js';
import { openaiNoDone } from './openai-no-done.js';
import { openaiBadEvent } from './openai-bad-event.js';
import { openaiAfterDone } from './openai-after-done.js';
import { openaiErrorShape } from './openai-error-shape.js';
import { openaiLimitLow } from './openai-limit-low.js';
import { requestsLimitLow } from './requests-limit-low.js';
import { requestsLimitHigh } from './requests-limit-high.js';
import { lowPriorityScales } from './low-priority-scales.js';
import { scaleOverMax } from './scale-over-max.js';
import { scaleStuck } from './scale-stuck.js';
import { noScaleDown } from './no-scale-down.js';

/**
 * Every fault, in the order the admin API, the README and the checker list them. A fault earlier in
 * the list is applied over the ones after it where two replace the same decision. Adding a fault:
 * its file in this folder and one line here.
 */
export const FAULT_LIST = [
  early429,
  no429,
  cancelIgnored,
  retryAny,
  purgeRunning,
  loseJobs,
  ttlIgnored,
  timeoutIgnored,
  wrongTypes,
  backwardsStatus,
  noWebhookRetry,
  oversizeAccepted,
  authOpen,
  healthDrift,
  chunkTooLarge,
  serverErrors,
  oddStatus,
  malformedBodies,
  backwardsQueue,
  spuriousCancel,
  retentionIgnored,
  timeoutEarly,
  runsyncOverwait,
  purgeMiscount,
  timingInflated,
  paramsUnchecked,
  badRetryAfter,
  bareKeyRejected,
  noWebhook,
  webhookWrongStatus,
  webhookFastRetry,
  webhookDuplicate,
  streamAfterFinal,
  streamDuplicate,
  healthNegative,
  healthDecrease,
  missingRoutes,
  streamPostOnly,
  unknownJobFound,
  inputOptional,
  slowExecution,
  openaiNoDone,
  openaiBadEvent,
  openaiAfterDone,
  openaiErrorShape,
  openaiLimitLow,
  requestsLimitLow,
  requestsLimitHigh,
  lowPriorityScales,
  scaleOverMax,
  scaleStuck,
  noScaleDown,
] as const;
