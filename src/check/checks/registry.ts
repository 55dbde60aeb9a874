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

/** Fresh instances of every check family (some keep state, so each run gets its own). */
export function defaultChecks(openapi?: OpenApiRules): Check[] {
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
    healthCheck(),
    scalingCheck(),
    ...(openapi ? [managementCheck(openapi)] : []),
  ];
}
