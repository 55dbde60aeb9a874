import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';
import type { OpenApiOperationRules, OpenApiRules } from '../openapi-rules.js';
import { untrim } from '../untrim.js';

/** What the document says of one answer: undefined when it is not management.openapi's to judge. */
function mismatch(op: OpenApiOperationRules, status: number, body: unknown): string | false | undefined {
  const code = String(status);
  // An undeclared 5xx is server.error's, as for the queue operations: one defect, one id.
  if (status >= 500 && !op.responses.has(code)) return undefined;
  if (!op.responses.has(code) && !op.responses.has('default'))
    return `answered ${code}, which the OpenAPI document does not declare (declared: ${[...op.responses.keys()].join(', ')})`;
  const schema = op.responses.get(code) ?? op.responses.get('default');
  const parsed = schema && body !== undefined ? schema.safeParse(untrim(body)) : undefined;
  if (parsed?.success !== false) return false;
  const issue = parsed.error.issues[0];
  return `${code} body does not match the OpenAPI document: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}`;
}

/**
 * `management.openapi`: StartPod and CreateEndpoint answers against a user's OpenAPI document
 * (the contract's own schemas are judged by `schema.*` and `status.*`).
 */
export function managementCheck(rules: OpenApiRules): Check {
  return {
    name: 'management',
    ids: ['management.openapi'],
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange' || r.status === undefined) return;
      if (r.op !== 'StartPod' && r.op !== 'CreateEndpoint') return;
      const op = rules.get(r.op);
      if (!op) return;
      const found = mismatch(op, r.status, r.body);
      if (found === undefined) return;
      const v = ctx.judge('management.openapi', found !== false);
      if (v) ctx.emit(v, { record: r, message: `${r.op} ${String(found)}` });
    },
  };
}
