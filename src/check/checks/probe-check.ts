import type { JobstormRecord } from '../../core/record.js';
import type { Check } from '../check.js';

const FAMILY: Record<string, string> = {
  payload: 'limits.payload',
  wait: 'limits.wait',
  ttl: 'limits.ttl',
  executionTimeout: 'limits.execution-timeout',
};

/**
 * `limits.*` and `auth.*`: probes carry what the contract expects of them (accept or reject, or an
 * auth form), so the verdict is a comparison. 429 and transport errors say nothing either way.
 */
export const probeCheck: Check = {
  name: 'probe',
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.status === undefined || r.status === 429 || r.status >= 500) return;
    const auth = r.req?.auth;
    if (auth === 'missing' || auth === 'wrong') {
      if (r.status !== 401) {
        ctx.emit({ id: `auth.${auth}-key-accepted`, record: r, message: `a request with ${auth === 'missing' ? 'no' : 'a wrong'} key was answered ${String(r.status)}, not 401` });
      }
      return;
    }
    if (r.status === 401 && (auth === 'bearer' || auth === 'bare')) {
      ctx.emit({ id: 'auth.form-rejected', record: r, message: `a good key sent in the ${auth === 'bare' ? 'bare' : 'Bearer'} form was refused with 401` });
      return;
    }
    const probe = r.req?.probe;
    const expect = r.req?.expect;
    if (probe === undefined || expect === undefined) return;
    const id = FAMILY[probe.split('.')[0] ?? ''];
    if (id === undefined) return;
    const accepted = r.status >= 200 && r.status < 300;
    const rejected = r.status >= 400 && r.status < 500;
    if (expect === 'accept' && rejected) {
      ctx.emit({ id, record: r, message: `probe ${probe} is within the contract's limits but was rejected with ${String(r.status)}` });
    } else if (expect === 'reject' && accepted) {
      ctx.emit({ id, record: r, message: `probe ${probe} is outside the contract's limits but was accepted with ${String(r.status)}` });
    }
  },
};
