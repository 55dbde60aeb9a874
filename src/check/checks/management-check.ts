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
    ids: ['management.openapi'],
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange' || r.status === undefined) return;
      if (r.op !== 'StartPod' && r.op !== 'CreateEndpoint') return;
      const op = rules.get(r.op);
      if (!op) return;
      const code = String(r.status);
      const declared = op.responses.has(code) || op.responses.has('default');
      const schema = op.responses.get(code) ?? op.responses.get('default');
      const parsed =
        declared && schema && r.body !== undefined ? schema.safeParse(untrim(r.body)) : undefined;
      const v = ctx.judge('management.openapi', !declared || parsed?.success === false);
      if (!v) return;
      const issue = parsed?.error?.issues[0];
      ctx.emit(v, {
        record: r,
        message: !declared
          ? `${r.op} answered ${code}, which the OpenAPI document does not declare (declared: ${[...op.responses.keys()].join(', ')})`
          : `${r.op} ${code} body does not match the OpenAPI document: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}`,
      });
    },
  };
}
