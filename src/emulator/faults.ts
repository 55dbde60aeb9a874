import { z } from 'zod';
import type { ConfigIssue } from '../core/config-error.js';

/**
 * One switch per rule of the spec the emulator can break. Each exists to prove that a check of
 * the toolkit catches what it claims to catch, so each changes exactly the behaviour it names and
 * nothing else. The description is the rule it breaks, in one line (the checker lists them).
 */
export const FAULTS = {
  'early-429':
    'answers 429 once half of the effective rate limit (per window) is used, before the limit is reached',
  'no-429': 'never answers 429: neither the per-window rate limit nor the concurrency cap is enforced',
  'cancel-ignored':
    'POST /cancel answers CANCELLED but the job keeps going and later ends COMPLETED (or as its handler decides)',
  'retry-any':
    'POST /retry is accepted for a job in any final state (COMPLETED, CANCELLED), not only FAILED or TIMED_OUT',
  'purge-running': 'POST /purge-queue also cancels jobs already IN_PROGRESS (and counts them in removed)',
  'lose-jobs':
    'a job is forgotten (404) 5 s after it reaches a final state, long before its ttl and retention expire',
  'ttl-ignored':
    'policy.ttl and /status?ttl= are not enforced: jobs outlive their ttl (retention still applies)',
  'timeout-ignored': 'policy.executionTimeout is not enforced: a job runs past it and never ends TIMED_OUT',
  'wrong-types':
    'job bodies (status, runsync, status-sync, webhook; not stream) carry delayTime and executionTime as strings',
  'backwards-status': 'after a job COMPLETED, every second /status read shows it IN_PROGRESS again',
  'no-webhook-retry': 'a webhook that does not answer 200 is not retried (one attempt instead of three)',
  'oversize-accepted':
    'bodies over the /run (10 MB) and /runsync (20 MB) limits are accepted (up to 4x the limit)',
  'auth-open': 'any Authorization header, wrong or missing, is accepted on the /v1 and /v2 APIs',
  'health-drift': 'GET /health counts every completed job twice in jobs.completed',
  'chunk-too-large': 'streamed chunks are not split at 1 MB; each is padded past 1 MiB',
  'server-errors':
    'a fraction (the value, default 0.1) of /v1 and /v2 requests answer 500 before doing anything',
  'odd-status':
    'every 200 answer of the /v2 queue operations and the /v1 management calls is sent as 202, and a management 400 as 422 (bodies unchanged)',
  'malformed-bodies':
    'a field of the wrong type in bodies wrong-types leaves alone: /run, /stream, /cancel, /retry status as a number, purge removed and health jobs.completed as strings, management message and workersMax mistyped',
  'backwards-queue': 'a job that is IN_PROGRESS is shown IN_QUEUE on every second /status read while it runs',
  'spurious-cancel':
    'the service cancels every second job (by submission order) on its own when a worker would start it',
  'retention-ignored':
    'finished jobs are kept past their result retention (30 min /run, 1 min /runsync); only ttl deletes them',
  'timeout-early': 'jobs end TIMED_OUT at half their executionTimeout (executionTime reported accordingly)',
  'runsync-overwait':
    '/runsync and /status-sync answer only after twice their wait, even when the job finished earlier',
  'purge-miscount': 'POST /purge-queue reports removed 5 higher than the number of jobs it removed',
  'timing-inflated':
    'delayTime is reported 3600000 ms (1 h) larger than it was, in every job body and the stream envelope',
  'params-unchecked':
    'out-of-range wait, policy.ttl and policy.executionTimeout are clamped into range and accepted instead of answered 400',
  'bad-retry-after': '429 answers carry no Retry-After header',
  'bare-key-rejected':
    'the bare-key form "Authorization: <key>" is answered 401 on the /v1 and /v2 APIs; Bearer still works',
  'no-webhook': 'webhooks are never delivered',
  'webhook-wrong-status':
    'webhook bodies say FAILED (with an error) for COMPLETED jobs and COMPLETED (with output) for FAILED jobs',
  'webhook-fast-retry': 'webhook retries come 1 s apart instead of 10 s',
  'webhook-duplicate': 'each webhook is delivered a second time 1 s after the receiver answered 200',
  'stream-after-final':
    'after a /stream answer said the job is final and left no chunks, every later /stream call returns its last chunk again',
  'stream-duplicate':
    'every streamed chunk is delivered twice: in the answer where it is new and again in the next /stream answer',
  'health-negative': 'GET /health reports jobs.inQueue as -1 when the queue is empty',
  'health-decrease': 'GET /health reports jobs.completed 1 lower on every second read once it is above 0',
  'missing-routes':
    'POST /cancel and POST /retry are not served: 404 {"detail":"Not Found"}, as partial implementations of this API answer',
  'stream-post-only':
    'GET /stream/<id> is answered 405 (Allow: POST) and POST /stream/<id> is served instead, as servers that take every operation by POST do',
  'unknown-job-found':
    '/status of a job id the emulator never issued answers 200 with status FAILED ("job not found") instead of 404',
  'input-optional':
    'a /run or /runsync body without input is accepted (the job runs with an empty input) instead of answered 400',
  'slow-execution':
    'every job runs 30% longer than its handler asks (sleep_ms or the profile), as a slower build would: breaks no rule, proves `jobstorm compare` sees it',
  'openai-no-done': 'streamed /openai/* answers end without the final data: [DONE] event',
  'openai-bad-event':
    'in streamed /openai/* answers the first token event is cut short, so its data is not JSON',
  'openai-after-done': 'streamed /openai/* answers send one more chunk event after data: [DONE]',
  'openai-error-shape':
    '4xx answers of /openai/* carry {"error": "<message>"} instead of the OpenAI error object',
  'openai-limit-low':
    'POST /openai/* is refused (429) at half the table: 1000 requests per 10 s and 200 concurrent',
  'requests-limit-low':
    'GET /requests is refused (429) at half the table: 5 requests per 10 s and 1 concurrent',
  'requests-limit-high': 'GET /requests is limited at twice the table: 20 requests per 10 s and 4 concurrent',
} as const satisfies Record<string, string>;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name);
}

/** How much longer slow-execution makes every job. */
export const SLOW_EXECUTION_FACTOR = 1.3;

/** The fraction of 500s when `server-errors` is switched on without a value. */
export const DEFAULT_SERVER_ERROR_RATE = 0.1;

/**
 * Faults as options, the CLI and the admin API give them: a list of `name` or `name=value`, or an
 * object `{ name: true | false | value }`.
 */
export const FaultsInputSchema = z.union([
  z.array(z.string()),
  z.record(z.string(), z.union([z.boolean(), z.number()])),
]);
export type FaultsInput = z.infer<typeof FaultsInputSchema>;

/** The switched-on faults and their values (1 for plain switches, the fraction for server-errors). */
export class FaultSet {
  private readonly on = new Map<FaultName, number>();
  /** Hot-path copies, read on every request or job: a fault check there is a field read. */
  serverErrorRate = 0;
  authOpen = false;
  no429 = false;
  early429 = false;
  wrongTypes = false;
  backwardsStatus = false;
  healthDrift = false;
  chunkTooLarge = false;
  oddStatus = false;
  malformedBodies = false;
  backwardsQueue = false;
  spuriousCancel = false;
  retentionIgnored = false;
  timeoutEarly = false;
  runsyncOverwait = false;
  purgeMiscount = false;
  timingInflated = false;
  paramsUnchecked = false;
  badRetryAfter = false;
  bareKeyRejected = false;
  noWebhook = false;
  webhookWrongStatus = false;
  webhookFastRetry = false;
  webhookDuplicate = false;
  streamAfterFinal = false;
  streamDuplicate = false;
  healthNegative = false;
  healthDecrease = false;
  /** Jobs run this many times as long as planned (slow-execution); 1 when off. */
  executionFactor = 1;
  openaiNoDone = false;
  openaiBadEvent = false;
  openaiAfterDone = false;
  openaiErrorShape = false;

  has(name: FaultName): boolean {
    return this.on.has(name);
  }

  set(name: FaultName, value: number): void {
    if (value <= 0) this.on.delete(name);
    else this.on.set(name, value);
    this.refresh();
  }

  clear(name?: FaultName): void {
    if (name === undefined) this.on.clear();
    else this.on.delete(name);
    this.refresh();
  }

  /** Every fault with its description and value (0 when off), for the admin API. */
  list(): { name: FaultName; description: string; enabled: boolean; value: number }[] {
    return FAULT_NAMES.map((name) => {
      const value = this.on.get(name) ?? 0;
      return { name, description: FAULTS[name], enabled: value > 0, value };
    });
  }

  enabled(): Record<string, number> {
    return Object.fromEntries(this.on);
  }

  private refresh(): void {
    this.serverErrorRate = this.on.get('server-errors') ?? 0;
    this.authOpen = this.on.has('auth-open');
    this.no429 = this.on.has('no-429');
    this.early429 = this.on.has('early-429');
    this.wrongTypes = this.on.has('wrong-types');
    this.backwardsStatus = this.on.has('backwards-status');
    this.healthDrift = this.on.has('health-drift');
    this.chunkTooLarge = this.on.has('chunk-too-large');
    this.oddStatus = this.on.has('odd-status');
    this.malformedBodies = this.on.has('malformed-bodies');
    this.backwardsQueue = this.on.has('backwards-queue');
    this.spuriousCancel = this.on.has('spurious-cancel');
    this.retentionIgnored = this.on.has('retention-ignored');
    this.timeoutEarly = this.on.has('timeout-early');
    this.runsyncOverwait = this.on.has('runsync-overwait');
    this.purgeMiscount = this.on.has('purge-miscount');
    this.timingInflated = this.on.has('timing-inflated');
    this.paramsUnchecked = this.on.has('params-unchecked');
    this.badRetryAfter = this.on.has('bad-retry-after');
    this.bareKeyRejected = this.on.has('bare-key-rejected');
    this.noWebhook = this.on.has('no-webhook');
    this.webhookWrongStatus = this.on.has('webhook-wrong-status');
    this.webhookFastRetry = this.on.has('webhook-fast-retry');
    this.webhookDuplicate = this.on.has('webhook-duplicate');
    this.streamAfterFinal = this.on.has('stream-after-final');
    this.streamDuplicate = this.on.has('stream-duplicate');
    this.healthNegative = this.on.has('health-negative');
    this.healthDecrease = this.on.has('health-decrease');
    this.openaiNoDone = this.on.has('openai-no-done');
    this.openaiBadEvent = this.on.has('openai-bad-event');
    this.openaiAfterDone = this.on.has('openai-after-done');
    this.openaiErrorShape = this.on.has('openai-error-shape');
    this.executionFactor = this.on.has('slow-execution') ? SLOW_EXECUTION_FACTOR : 1;
  }

  /** How the rate-table faults scale an operation's row (1: the table as it is). */
  rateScale(op: 'openai' | 'requests'): number {
    if (op === 'openai') return this.on.has('openai-limit-low') ? 0.5 : 1;
    if (this.on.has('requests-limit-low')) return 0.5;
    return this.on.has('requests-limit-high') ? 2 : 1;
  }
}

/**
 * Turns the input forms into (name, value) pairs, collecting every problem (unknown name, a
 * server-errors fraction outside (0, 1]) instead of stopping at the first.
 */
export function parseFaults(
  input: FaultsInput,
  where: string,
): { faults: [FaultName, number][]; issues: ConfigIssue[] } {
  const pairs: [string, boolean | number | string][] = Array.isArray(input)
    ? input.map((item): [string, string | boolean] => {
        const eq = item.indexOf('=');
        return eq < 0 ? [item.trim(), true] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
      })
    : Object.entries(input);
  const faults: [FaultName, number][] = [];
  const issues: ConfigIssue[] = [];
  for (const [name, raw] of pairs) {
    if (!isFaultName(name)) {
      issues.push({ where, message: `unknown fault "${name}" (known: ${FAULT_NAMES.join(', ')})` });
      continue;
    }
    const value = faultValue(name, raw);
    if (value === undefined) {
      issues.push({
        where,
        message:
          name === 'server-errors'
            ? `server-errors takes a fraction in (0, 1], got "${String(raw)}"`
            : `${name} is a switch: give true or false, got "${String(raw)}"`,
      });
      continue;
    }
    faults.push([name, value]);
  }
  return { faults, issues };
}

function faultValue(name: FaultName, raw: boolean | number | string): number | undefined {
  if (raw === true) return name === 'server-errors' ? DEFAULT_SERVER_ERROR_RATE : 1;
  if (raw === false || raw === 'false') return 0;
  if (name !== 'server-errors') return raw === 'true' || raw === 1 ? 1 : undefined;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) && n > 0 && n <= 1 ? n : undefined;
}
