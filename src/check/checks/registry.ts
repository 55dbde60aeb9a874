import type { RunLimits } from '../../core/run-limits.js';
import type { Check } from '../check.js';
import type { OpenApiRules } from '../openapi-rules.js';
import { healthCheck } from './health-check.js';
import { lifecycleCheck } from './lifecycle-check.js';
import { managementCheck } from './management-check.js';
import { openAiStreamCheck } from './openai-stream-check.js';
import { probeCheck } from './probe-check.js';
import { purgeCheck } from './purge-check.js';
import { rateLimitCheck } from './ratelimit-check.js';
import { responseCheck } from './response-check.js';
import { scalingCheck } from './scaling-check.js';
import { streamCheck } from './stream-check.js';
import { transitionCheck } from './transition-check.js';
import { webhookCheck } from './webhook-check.js';

/**
 * Fresh instances of every check family (some keep state, so each run gets its own); `limits`:
 * what those whose memory would follow the run's length keep at most (default RunLimits').
 */
export function defaultChecks(openapi?: OpenApiRules, limits: Partial<RunLimits> = {}): Check[] {
  return [
    responseCheck,
    transitionCheck(),
    lifecycleCheck,
    purgeCheck(),
    probeCheck(),
    rateLimitCheck(),
    webhookCheck(),
    streamCheck,
    openAiStreamCheck,
    healthCheck(limits),
    scalingCheck(limits),
    ...(openapi ? [managementCheck(openapi)] : []),
  ];
}
