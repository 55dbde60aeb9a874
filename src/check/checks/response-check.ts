import type { z } from 'zod';
import { MANAGEMENT_OPERATION_CONTRACTS } from '../../../contracts/management/operations.js';
import { QUEUE_OPERATION_CONTRACTS } from '../../../contracts/queue/operations.js';
import { OPERATIONS, type Operation, type QueueOperation } from '../../core/operation.js';
import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import { WRONG_METHOD_PROBE } from '../../core/route-watch.js';
import type { Check, CheckContext } from '../check.js';
import { fastValidator } from '../fast-validator.js';
import { untrim } from '../untrim.js';

function responsesOf(op: Operation): Record<number, z.ZodType> {
  if (op === 'StartPod' || op === 'CreateEndpoint') return MANAGEMENT_OPERATION_CONTRACTS[op].responses;
  return QUEUE_OPERATION_CONTRACTS[op].responses;
}

function isQueue(op: Operation): op is QueueOperation {
  return op !== 'StartPod' && op !== 'CreateEndpoint';
}

/** Each operation's ids, made once: a template per answer would build a new string per record. */
const STATUS_ID = Object.fromEntries(OPERATIONS.map((op) => [op, `status.${op}` as const])) as {
  [O in Operation]: `status.${O}`;
};
const SCHEMA_ID = Object.fromEntries(OPERATIONS.map((op) => [op, `schema.${op}` as const])) as {
  [O in Operation]: `schema.${O}`;
};

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}

/** A 404/405 from a route the target lacks, or never served: `route.missing`'s, not the contract's. */
function routeAnswer(r: ExchangeRecord, status: number, ctx: CheckContext): boolean {
  // A route the target lacks is one `route.missing`, not a wrong status or error body per answer;
  // nor does a 404/405 from a route never seen working say anything about the contract's error body.
  // The requests probe's POST to a GET route is a wrong method on purpose: the route watch's alone.
  if (r.req?.probe === WRONG_METHOD_PROBE) return true;
  return (
    (status === 404 || status === 405) &&
    (ctx.routes.isMissing(r.op) || ctx.routes.refuses(r) || (isQueue(r.op) && !ctx.routes.hasServed(r.op)))
  );
}

/** `schema.<op>`: the body of an answer whose status code the contract allows. */
function judgeBody(r: ExchangeRecord, status: number, schema: z.ZodType, ctx: CheckContext): void {
  const id = SCHEMA_ID[r.op];
  if (r.body === undefined) {
    // StartPod's 200 has no body schema; everything else answers JSON, unless we chose not to read it.
    const v = ctx.judge(id, r.op !== 'StartPod' || status !== 200);
    if (v)
      ctx.emit(v, {
        record: r,
        message: `${r.op} ${String(status)} body is not JSON${r.error ? ` (${r.error.kind})` : ''}`,
      });
    return;
  }
  // A cut string (see trimBody) was longer than 256 characters, so a body of 256 bytes or fewer
  // has none to restore; resBytes never counts less than the body (it may count headers too).
  const body = r.resBytes > 256 ? untrim(r.body) : r.body;
  const parsed = fastValidator(schema)?.(body) === true ? undefined : schema.safeParse(body);
  const v = ctx.judge(id, parsed?.success === false);
  if (v && parsed?.error)
    ctx.emit(v, {
      record: r,
      message: `${r.op} ${String(status)} body breaks the contract: ${describeIssues(parsed.error)}`,
    });
}

/**
 * `status.<op>`, `server.error` and `schema.<op>`: every answer's status code must be one the
 * contract allows for its operation, and its body must match that code's schema.
 */
export const responseCheck: Check = {
  name: 'response',
  ids: ['server.error', ...Object.values(STATUS_ID), ...Object.values(SCHEMA_ID)],
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.status === undefined) return;
    const error = ctx.judge('server.error', r.status >= 500);
    if (error) ctx.emit(error, { record: r, message: `${r.op} answered ${String(r.status)}` });
    if (r.status >= 500 || routeAnswer(r, r.status, ctx)) return;
    const schema = responsesOf(r.op)[r.status];
    const v = ctx.judge(STATUS_ID[r.op], !schema);
    if (v)
      ctx.emit(v, {
        record: r,
        message: `${r.op} answered ${String(r.status)}, which the contract does not allow (allowed: ${Object.keys(responsesOf(r.op)).join(', ')})`,
      });
    // A streamed /openai/* answer is events, not one body: schema.openai-stream judges it.
    if (!schema || r.sse !== undefined || r.bodyUnread) return;
    judgeBody(r, r.status, schema, ctx);
  },
};
