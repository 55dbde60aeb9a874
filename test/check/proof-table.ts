import { QUEUE_OPERATIONS } from '../../src/core/operation.js';
import type { Fault } from '../../src/emulator/faults/fault.js';
import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import {
  ALL_OPS,
  CLOCKED,
  HEALTH_READS,
  OPENAI,
  OPENAI_RATE,
  PROBES,
  RATE,
  REQUESTS_RATE,
  RETRY_PURGE,
  RUNSYNC,
  STREAMS,
  WATCH,
  WEBHOOKS,
} from './proof-scenarios.js';

/*
 * The fault proofs' table: faults.test.ts runs each live, and `npm run streams:update` saves each
 * run's records for the fast replay (saved-streams.test.ts).
 */

/** RETRY_PURGE with a cancel where the purge was, under its own name (its saved streams are its own). */
const RETRY_CANCEL = RETRY_PURGE.replace('- purge: {}', '- cancel: {}').replace(
  'name: retry-purge',
  'name: retry-cancel',
);

export const FAILING_HOOK: WebhookAnswers = { status: 500, failAttempts: 99 };

export interface Proof {
  fault: string;
  scenario: string;
  /**
   * Ids this fault must make fire on this scenario (each is the catalog's proof of that id). Any
   * other id of the fault's `mayTrip` may fire too; an id outside it fails the proof.
   */
  ids: string[];
  webhookAnswers?: WebhookAnswers;
}

/** The queue's own operations (the OpenAI-compatible routes and /requests are proven apart). */
const queueOps = QUEUE_OPERATIONS.filter((op) => op !== 'openai' && op !== 'requests');

/** Every check id, with the fault that breaks its rule and a scenario that exercises it. */
export const PROOFS: Proof[] = [
  { fault: 'wrong-types', scenario: ALL_OPS, ids: ['schema.runsync', 'schema.status', 'schema.status-sync'] },
  {
    fault: 'malformed-bodies',
    scenario: ALL_OPS,
    ids: [
      'schema.run',
      'schema.stream',
      'schema.cancel',
      'schema.retry',
      'schema.purge-queue',
      'schema.health',
      'schema.StartPod',
      'schema.CreateEndpoint',
    ],
  },
  {
    fault: 'odd-status',
    scenario: ALL_OPS,
    ids: [
      ...queueOps.map((op) => `status.${op}`),
      'status.StartPod',
      'status.CreateEndpoint',
      'management.openapi',
    ],
  },
  { fault: 'server-errors=0.5', scenario: ALL_OPS, ids: ['server.error'] },
  { fault: 'backwards-queue', scenario: WATCH, ids: ['transition.backwards'] },
  { fault: 'backwards-status', scenario: WATCH, ids: ['transition.left-final'] },
  { fault: 'spurious-cancel', scenario: WATCH, ids: ['transition.cancelled-unprompted'] },
  { fault: 'timing-inflated', scenario: WATCH, ids: ['lifecycle.timing-inconsistent'] },
  { fault: 'health-negative', scenario: WATCH, ids: ['health.negative'] },
  { fault: 'health-decrease', scenario: HEALTH_READS, ids: ['health.counter-decreased'] },
  { fault: 'health-drift', scenario: WATCH, ids: ['health.jobs-mismatch'] },
  {
    fault: 'cancel-ignored',
    scenario: RETRY_CANCEL,
    ids: ['transition.cancel-overridden'],
  },
  { fault: 'lose-jobs', scenario: CLOCKED, ids: ['lifecycle.lost'] },
  { fault: 'ttl-ignored', scenario: CLOCKED, ids: ['lifecycle.ttl-ignored'] },
  { fault: 'retention-ignored', scenario: CLOCKED, ids: ['lifecycle.retention-ignored'] },
  { fault: 'timeout-ignored', scenario: CLOCKED, ids: ['lifecycle.timeout-ignored'] },
  { fault: 'timeout-early', scenario: CLOCKED, ids: ['lifecycle.timeout-early'] },
  { fault: 'runsync-overwait', scenario: RUNSYNC, ids: ['lifecycle.runsync-wait-exceeded'] },
  { fault: 'retry-any', scenario: RETRY_PURGE, ids: ['lifecycle.retry-not-allowed'] },
  { fault: 'purge-running', scenario: RETRY_PURGE, ids: ['lifecycle.purge-running'] },
  { fault: 'purge-miscount', scenario: RETRY_PURGE, ids: ['lifecycle.purge-count'] },
  { fault: 'oversize-accepted', scenario: PROBES, ids: ['limits.payload'] },
  {
    fault: 'params-unchecked',
    scenario: PROBES,
    ids: ['limits.wait', 'limits.ttl', 'limits.execution-timeout'],
  },
  { fault: 'auth-open', scenario: PROBES, ids: ['auth.missing-key-accepted', 'auth.wrong-key-accepted'] },
  { fault: 'bare-key-rejected', scenario: PROBES, ids: ['auth.form-rejected'] },
  { fault: 'early-429', scenario: RATE, ids: ['ratelimit.early'] },
  { fault: 'no-429', scenario: RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'bad-retry-after', scenario: RATE, ids: ['ratelimit.retry-after'] },
  { fault: 'no-webhook', scenario: WEBHOOKS, ids: ['webhook.missing'] },
  { fault: 'wrong-types', scenario: WEBHOOKS, ids: ['webhook.schema'] },
  { fault: 'webhook-wrong-status', scenario: WEBHOOKS, ids: ['webhook.status-mismatch'] },
  { fault: 'webhook-duplicate', scenario: WEBHOOKS, ids: ['webhook.duplicate'] },
  {
    fault: 'no-webhook-retry',
    scenario: WEBHOOKS,
    ids: ['webhook.retry-count'],
    webhookAnswers: FAILING_HOOK,
  },
  {
    fault: 'webhook-fast-retry',
    scenario: WEBHOOKS,
    ids: ['webhook.retry-spacing'],
    webhookAnswers: FAILING_HOOK,
  },
  { fault: 'chunk-too-large', scenario: STREAMS, ids: ['stream.chunk-too-large'] },
  { fault: 'stream-after-final', scenario: STREAMS, ids: ['stream.after-final'] },
  { fault: 'stream-duplicate', scenario: STREAMS, ids: ['stream.duplicate-chunk'] },
  {
    fault: 'missing-routes',
    scenario: RETRY_CANCEL,
    ids: ['route.missing'],
  },
  // Issue 13: what partial servers get wrong, from the requests probe.
  { fault: 'stream-post-only', scenario: PROBES, ids: ['request.method'] },
  { fault: 'unknown-job-found', scenario: PROBES, ids: ['request.unknown-job'] },
  { fault: 'input-optional', scenario: PROBES, ids: ['request.missing-input'] },
  // Issue 18: the OpenAI-compatible routes and /requests.
  { fault: 'openai-error-shape', scenario: OPENAI, ids: ['schema.openai'] },
  { fault: 'openai-no-done', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'openai-bad-event', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'openai-after-done', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'odd-status', scenario: OPENAI, ids: ['status.openai', 'status.requests'] },
  { fault: 'malformed-bodies', scenario: OPENAI, ids: ['schema.requests'] },
  // The rate-limit checks on both rows of the table, and on faults that break its numbers.
  { fault: 'openai-limit-low', scenario: OPENAI_RATE, ids: ['ratelimit.early'] },
  { fault: 'early-429', scenario: REQUESTS_RATE, ids: ['ratelimit.early'] },
  { fault: 'requests-limit-low', scenario: REQUESTS_RATE, ids: ['ratelimit.early'] },
  { fault: 'requests-limit-high', scenario: REQUESTS_RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'no-429', scenario: REQUESTS_RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'bad-retry-after', scenario: REQUESTS_RATE, ids: ['ratelimit.retry-after'] },
  // Breaks no rule (it exists for `jobstorm compare`): its proof is that nothing fires.
  { fault: 'slow-execution', scenario: WATCH, ids: [] },
];

export const nameOf = (yaml: string): string => /name: (\S+)/.exec(yaml)?.[1] ?? '?';

export const faultOf = (p: Pick<Proof, 'fault'>): Fault => {
  const fault = FAULT_LIST.find((f) => f.name === p.fault.split('=')[0]);
  if (!fault) throw new Error(`no fault ${p.fault}`);
  return fault;
};
