import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';
import type { OpenApiRules } from '../openapi-rules.js';
import { untrim } from '../untrim.js';

/**
 * `management.openapi`: StartPod and CreateEndpoint answers against a user's OpenAPI document
 * (the contract's own schemas are judged by `schema.*` and `status.*`).
 */
export function managementCheck(rules: OpenApiRules): Check {
  return {
    name: 'management',
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange' || r.status === undefined) return;
      if (r.op !== 'StartPod' && r.op !== 'CreateEndpoint') return;
      const op = rules.get(r.op);
      if (!op) return;
      const code = String(r.status);
      ctx.judged('management.openapi');
      if (!op.responses.has(code) && !op.responses.has('default')) {
        ctx.emit({
          id: 'management.openapi',
          record: r,
          message: `${r.op} answered ${code}, which the OpenAPI document does not declare (declared: ${[...op.responses.keys()].join(', ')})`,
        });
        return;
      }
      const schema = op.responses.get(code) ?? op.responses.get('default');
      if (!schema || r.body === undefined) return;
      const parsed = schema.safeParse(untrim(r.body));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        ctx.emit({
          id: 'management.openapi',
          record: r,
          message: `${r.op} ${code} body does not match the OpenAPI document: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}`,
        });
      }
    },
  };
}
