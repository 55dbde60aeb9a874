import type { Operation } from '../core/operation.js';
import { OPERATIONS } from '../core/operation.js';
import type { Severity } from '../core/violation.js';

/** A row of the catalog as written: what an id means and the emulator fault that proves it fires. */
interface CheckRow {
  id: string;
  severity: Severity;
  description: string;
  /** The emulator fault whose test shows this id firing. */
  provenBy: string;
}

/** Operations whose bodies are the job view: the `wrong-types` fault breaks these. */
const JOB_BODY_OPS: ReadonlySet<Operation> = new Set(['runsync', 'status', 'status-sync']);

/** schema.<op> ids whose description and proof are their own. */
const SCHEMA_SPECIAL: Partial<Record<Operation, { description: string; provenBy: string }>> = {
  openai: {
    description:
      'an /openai/* answer is not an OpenAI chat.completion, text_completion or model list (2xx), or a 4xx lacks the OpenAI error object {"error":{"message","type","param","code"}}',
    provenBy: 'openai-error-shape',
  },
};

/** The families with one id per operation: a response's status code, and its body. */
type PerOperationFamily = 'schema' | 'status';

const perOperation = (family: PerOperationFamily, ops: readonly Operation[]): CheckInfo[] =>
  ops.map((op) => ({
    id: `${family}.${op}` as const,
    severity: 'error',
    description:
      (family === 'schema' ? SCHEMA_SPECIAL[op]?.description : undefined) ??
      (family === 'schema'
        ? `a ${op} response body does not match the contract's schema for its status code`
        : `${op} answered a status code the contract does not allow for it`),
    provenBy:
      family === 'status'
        ? 'odd-status'
        : (SCHEMA_SPECIAL[op]?.provenBy ?? (JOB_BODY_OPS.has(op) ? 'wrong-types' : 'malformed-bodies')),
  }));

/** The ids that are not one per operation, in the order reports list them. */
const FIXED_CHECKS = [
  {
    id: 'schema.openai-stream',
    severity: 'error',
    description:
      'a streamed /openai/* answer is not framed as OpenAI server-sent events: an event that is not JSON, no final data: [DONE], or an event after it',
    provenBy: 'openai-no-done',
  },
  {
    id: 'server.error',
    severity: 'error',
    description: 'a 5xx answer (endpoint or worker failure)',
    provenBy: 'server-errors',
  },
  {
    id: 'transition.backwards',
    severity: 'error',
    description: 'a job was seen going back to an earlier state (e.g. IN_PROGRESS then IN_QUEUE)',
    provenBy: 'backwards-queue',
  },
  {
    id: 'transition.left-final',
    severity: 'error',
    description: 'a job left a final state without a retry of ours (e.g. COMPLETED then IN_PROGRESS)',
    provenBy: 'backwards-status',
  },
  {
    id: 'transition.cancel-overridden',
    severity: 'error',
    description: 'a cancel answered CANCELLED, yet the job was later seen in another state',
    provenBy: 'cancel-ignored',
  },
  {
    id: 'transition.cancelled-unprompted',
    severity: 'error',
    description: 'a job was shown CANCELLED though we neither cancelled nor purged it',
    provenBy: 'spurious-cancel',
  },
  {
    id: 'lifecycle.lost',
    severity: 'error',
    description:
      '404 for a job before its ttl and its retention ended: from /status, or from a /cancel, /retry or /stream that answers other jobs (even when /status then still shows the job)',
    provenBy: 'lose-jobs',
  },
  {
    id: 'lifecycle.ttl-ignored',
    severity: 'error',
    description: 'a job still served after its ttl (plus tolerance)',
    provenBy: 'ttl-ignored',
  },
  {
    id: 'lifecycle.retention-ignored',
    severity: 'error',
    description: 'a finished job still served after its retention (plus tolerance)',
    provenBy: 'retention-ignored',
  },
  {
    id: 'lifecycle.timeout-ignored',
    severity: 'error',
    description: 'a job ran longer than executionTimeout (plus tolerance) and did not time out',
    provenBy: 'timeout-ignored',
  },
  {
    id: 'lifecycle.timeout-early',
    severity: 'error',
    description: 'a job was TIMED_OUT before its executionTimeout',
    provenBy: 'timeout-early',
  },
  {
    id: 'lifecycle.runsync-wait-exceeded',
    severity: 'error',
    description:
      '/runsync answered later than its wait (plus tolerance), counted from when the request went onto a connection',
    provenBy: 'runsync-overwait',
  },
  {
    id: 'lifecycle.retry-not-allowed',
    severity: 'error',
    description: 'a retry was accepted for a job that was not FAILED or TIMED_OUT',
    provenBy: 'retry-any',
  },
  {
    id: 'lifecycle.purge-running',
    severity: 'error',
    description: 'purge-queue removed a job that was already running',
    provenBy: 'purge-running',
  },
  {
    id: 'lifecycle.purge-count',
    severity: 'error',
    description:
      'purge-queue reported a removed count that disagrees with the jobs we know were queued (endpoint we own)',
    provenBy: 'purge-miscount',
  },
  {
    id: 'lifecycle.timing-inconsistent',
    severity: 'warning',
    description: 'delayTime + executionTime larger than the time we observed the job to exist',
    provenBy: 'timing-inflated',
  },
  {
    id: 'limits.payload',
    severity: 'error',
    description: 'a body just inside the payload limit was rejected, or one just outside was accepted',
    provenBy: 'oversize-accepted',
  },
  {
    id: 'limits.wait',
    severity: 'error',
    description: 'a /runsync wait at the edge of 1000..300000 ms was handled against the contract',
    provenBy: 'params-unchecked',
  },
  {
    id: 'limits.ttl',
    severity: 'error',
    description: 'a policy.ttl at the edge of 10 s..7 d was handled against the contract',
    provenBy: 'params-unchecked',
  },
  {
    id: 'limits.execution-timeout',
    severity: 'error',
    description: 'a policy.executionTimeout at the edge of 5 s..7 d was handled against the contract',
    provenBy: 'params-unchecked',
  },
  {
    id: 'ratelimit.early',
    severity: 'error',
    description:
      'a 429 while every request that can have reached the service in its 10 s window, and every one that can have been in progress, were under the effective limit',
    provenBy: 'early-429',
  },
  {
    id: 'ratelimit.not-enforced',
    severity: 'error',
    description: 'requests accepted beyond the effective limit (plus tolerance)',
    provenBy: 'no-429',
  },
  {
    id: 'ratelimit.retry-after',
    severity: 'error',
    description: 'a 429 without a Retry-After, or with one that cannot be true for a 10 s window',
    provenBy: 'bad-retry-after',
  },
  {
    id: 'auth.missing-key-accepted',
    severity: 'error',
    description: 'a request without a key was not answered 401',
    provenBy: 'auth-open',
  },
  {
    id: 'auth.wrong-key-accepted',
    severity: 'error',
    description: 'a request with a wrong key was not answered 401',
    provenBy: 'auth-open',
  },
  {
    id: 'auth.form-rejected',
    severity: 'error',
    description: 'a good key in one of the two header forms (Bearer or bare) was refused',
    provenBy: 'bare-key-rejected',
  },
  {
    id: 'webhook.missing',
    severity: 'error',
    description: 'a job that asked for a webhook reached a final state but no delivery came',
    provenBy: 'no-webhook',
  },
  {
    id: 'webhook.schema',
    severity: 'error',
    description: 'a webhook body does not match the status schema',
    provenBy: 'wrong-types',
  },
  {
    id: 'webhook.status-mismatch',
    severity: 'error',
    description: "a webhook body's status disagrees with the job's final state",
    provenBy: 'webhook-wrong-status',
  },
  {
    id: 'webhook.retry-count',
    severity: 'error',
    description: 'after our receiver answered non-200, not exactly 2 more attempts came',
    provenBy: 'no-webhook-retry',
  },
  {
    id: 'webhook.retry-spacing',
    severity: 'error',
    description: 'webhook retries not about 10 s apart',
    provenBy: 'webhook-fast-retry',
  },
  {
    id: 'webhook.duplicate',
    severity: 'error',
    description: 'a webhook delivered again after our receiver answered 200',
    provenBy: 'webhook-duplicate',
  },
  {
    id: 'stream.chunk-too-large',
    severity: 'error',
    description: 'a streamed chunk larger than 1 MB',
    provenBy: 'chunk-too-large',
  },
  {
    id: 'stream.after-final',
    severity: 'error',
    description:
      'chunks delivered after a stream response had already said the job was final (and so handed over its last chunks)',
    provenBy: 'stream-after-final',
  },
  {
    id: 'stream.duplicate-chunk',
    severity: 'error',
    description: 'the same chunk (same stream index) delivered twice',
    provenBy: 'stream-duplicate',
  },
  {
    id: 'health.negative',
    severity: 'error',
    description: 'a /health counter below zero',
    provenBy: 'health-negative',
  },
  {
    id: 'health.counter-decreased',
    severity: 'error',
    description: 'jobs.completed, jobs.failed or jobs.retried went down between two samples',
    provenBy: 'health-decrease',
  },
  {
    id: 'health.jobs-mismatch',
    severity: 'error',
    description: '/health job counts contradict what we submitted on an endpoint we own',
    provenBy: 'health-drift',
  },
  {
    id: 'scaling.low-priority',
    severity: 'error',
    description:
      'workers started while every job in the queue was lowPriority, which "does not trigger worker scaling" (/health samples on an endpoint only this run uses; needs workersMin and workers.initializing)',
    provenBy: 'low-priority-scales',
  },
  {
    id: 'scaling.above-max',
    severity: 'error',
    description: '/health counted more workers (idle + running + initializing) than workersMax',
    provenBy: 'scale-over-max',
  },
  {
    id: 'scaling.stuck',
    severity: 'error',
    description:
      'jobs that call for workers waited in the queue, beyond the workers idle or starting, while the workers stayed below workersMax for longer than the scale-up bound (scaleUpWithin plus tolerance)',
    provenBy: 'scale-stuck',
  },
  {
    id: 'scaling.no-scale-down',
    severity: 'warning',
    description:
      'workers above workersMin stayed idle with an empty queue longer than idleTimeout (plus tolerance): they cost money, no promise is broken',
    provenBy: 'no-scale-down',
  },
  {
    id: 'route.missing',
    severity: 'error',
    description:
      'an operation the contract promises is not served: 404 where the endpoint or the job demonstrably exists (reported once per operation; the run stops sending it)',
    provenBy: 'missing-routes',
  },
  {
    id: 'request.method',
    severity: 'error',
    description:
      "an operation is served, but not to the contract's method: 405 (the Allow header names another), or the requests probe's GET of /status or /stream answered 404 where POST to the same path answered 2xx (once per operation; the run then sends it the way the target takes it, marked adaptedFrom, or stops sending it with --strict)",
    provenBy: 'stream-post-only',
  },
  {
    id: 'request.unknown-job',
    severity: 'error',
    description:
      '/status of a job id that never existed was not answered 404 (a 200 with a FAILED body is the usual mistake)',
    provenBy: 'unknown-job-found',
  },
  {
    id: 'request.missing-input',
    severity: 'error',
    description: 'a /run or /runsync body without input was not answered 400',
    provenBy: 'input-optional',
  },
  {
    id: 'management.openapi',
    severity: 'error',
    description: 'a management response that the given OpenAPI document does not allow (status code or body)',
    provenBy: 'odd-status',
  },
] as const satisfies readonly CheckRow[];

/**
 * Every id a check can report: a finding or a count under any other id is a compile error, so the
 * catalog, the checks and the reports cannot disagree about which ids exist.
 */
export type CheckId = `${PerOperationFamily}.${Operation}` | (typeof FIXED_CHECKS)[number]['id'];

/** One check id: what it means and the emulator fault that proves it fires. */
export interface CheckInfo extends CheckRow {
  id: CheckId;
}

/** Every check id jobstorm can report. The README's check table is generated from this list. */
export const CHECK_CATALOG: readonly CheckInfo[] = [
  ...perOperation('schema', OPERATIONS),
  ...perOperation('status', OPERATIONS),
  ...FIXED_CHECKS,
];

const BY_ID = new Map<string, CheckInfo>(CHECK_CATALOG.map((c) => [c.id, c]));

/** Every check id, for the names a threshold or a gate may use. */
export const CHECK_IDS: readonly string[] = CHECK_CATALOG.map((c) => c.id);

export function isCheckId(id: string): id is CheckId {
  return BY_ID.has(id);
}

export function checkInfo(id: string): CheckInfo {
  const info = BY_ID.get(id);
  if (!info) throw new Error(`unknown check id ${id}: add it to CHECK_CATALOG`);
  return info;
}
