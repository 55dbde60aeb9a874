import type { z } from 'zod';
import { MANAGEMENT_OPERATION_CONTRACTS } from '../../../contracts/management/operations.js';
import { QUEUE_OPERATION_CONTRACTS } from '../../../contracts/queue/operations.js';
import type { Operation, QueueOperation } from '../../core/operation.js';
import type { JobstormRecord } from '../../core/record.js';
import { WRONG_METHOD_PROBE } from '../../core/route-watch.js';
import type { Check } from '../check.js';
import { fastValidator } from '../fast-validator.js';
import { untrim } from '../untrim.js';

function responsesOf(op: Operation): Record<number, z.ZodType> {
  if (op === 'StartPod' || op === 'CreateEndpoint') return MANAGEMENT_OPERATION_CONTRACTS[op].responses;
  return QUEUE_OPERATION_CONTRACTS[op].responses;
}

function isQueue(op: Operation): op is QueueOperation {
  return op !== 'StartPod' && op !== 'CreateEndpoint';
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}

/**
 * `status.<op>`, `server.error` and `schema.<op>`: every answer's status code must be one the
 * contract allows for its operation, and its body must match that code's schema.
 */
export const responseCheck: Check = {
  name: 'response',
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.status === undefined) return;
    ctx.judged('server.error');
    if (r.status >= 500) {
      ctx.emit({ id: 'server.error', record: r, message: `${r.op} answered ${String(r.status)}` });
      return;
    }
    // A route the target lacks is one `route.missing`, not a wrong status or error body per answer;
    // nor does a 404/405 from a route never seen working say anything about the contract's error body.
    // The requests probe's POST to a GET route is a wrong method on purpose: the route watch's alone.
    if (r.req?.probe === WRONG_METHOD_PROBE) return;
    if (
      (r.status === 404 || r.status === 405) &&
      (ctx.routes.isMissing(r.op) || (isQueue(r.op) && !ctx.routes.hasServed(r.op)))
    )
      return;
    ctx.judged(`status.${r.op}`);
    const schema = responsesOf(r.op)[r.status];
    if (!schema) {
      ctx.emit({
        id: `status.${r.op}`,
        record: r,
        message: `${r.op} answered ${String(r.status)}, which the contract does not allow (allowed: ${Object.keys(responsesOf(r.op)).join(', ')})`,
      });
      return;
    }
    // A streamed /openai/* answer is events, not one body: schema.openai-stream judges it.
    if (r.sse !== undefined) return;
    if (r.bodyUnread) return;
    ctx.judged(`schema.${r.op}`);
    if (r.body === undefined) {
      // StartPod's 200 has no body schema; everything else answers JSON, unless we chose not to read it.
      if (r.op === 'StartPod' && r.status === 200) return;
      ctx.emit({
        id: `schema.${r.op}`,
        record: r,
        message: `${r.op} ${String(r.status)} body is not JSON${r.error ? ` (${r.error.kind})` : ''}`,
      });
      return;
    }
    // A cut string (see trimBody) was longer than 256 characters, so a body of 256 bytes or fewer
    // has none to restore; resBytes never counts less than the body (it may count headers too).
    const body = r.resBytes > 256 ? untrim(r.body) : r.body;
    if (fastValidator(schema)?.(body) === true) return;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      ctx.emit({
        id: `schema.${r.op}`,
        record: r,
        message: `${r.op} ${String(r.status)} body breaks the contract: ${describeIssues(parsed.error)}`,
      });
    }
  },
};
