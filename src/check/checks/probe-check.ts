import type { QueueOperation } from '../../core/operation.js';
import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';

const FAMILY: Record<string, string> = {
  payload: 'limits.payload',
  wait: 'limits.wait',
  ttl: 'limits.ttl',
  executionTimeout: 'limits.execution-timeout',
};

/**
 * `limits.*` and `auth.*`: probes carry what the contract expects of them (accept or reject, or an
 * auth form), so the verdict is a comparison. 429 and transport errors say nothing either way.
 *
 * A 401 to our key in one form is `auth.form-rejected` only once the same key was let in (any
 * non-401 answer) in the other form: when every request with the key is refused, the key itself
 * is wrong, and that is the run's verdict (inconclusive), not a finding about the target.
 */
export function probeCheck(): Check {
  const letIn = { bearer: false, bare: false };
  /** First refusal per form, waiting for the other form to be let in. */
  const refused: { bearer?: ExchangeRecord; bare?: ExchangeRecord } = {};
  const formRejected = (r: ExchangeRecord, form: 'bearer' | 'bare', ctx: CheckContext): void => {
    ctx.emit({
      id: 'auth.form-rejected',
      record: r,
      message: `a good key sent in the ${form === 'bare' ? 'bare' : 'Bearer'} form was refused with 401, while the same key in the ${form === 'bare' ? 'Bearer' : 'bare'} form was let in`,
    });
  };
  let openReported = false;
  return {
    name: 'probe',
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange' || r.status === undefined || r.status === 429 || r.status >= 500) return;
      if (judgeRequestProbe(r, r.status, ctx)) return;
      const auth = r.req?.auth;
      if (auth === 'none') {
        // A run without a key (`--auth none`): the target's openness is one finding, not one per request.
        ctx.judged('auth.missing-key-accepted');
        if (r.status !== 401 && !openReported) {
          openReported = true;
          ctx.emit({
            id: 'auth.missing-key-accepted',
            record: r,
            message: `this target answers requests without a key (${String(r.status)} here, and the run sent none); the contract says 401`,
          });
        }
        return;
      }
      if (auth === 'missing' || auth === 'wrong') {
        ctx.judged(`auth.${auth}-key-accepted`);
        if (r.status !== 401) {
          ctx.emit({
            id: `auth.${auth}-key-accepted`,
            record: r,
            message: `a request with ${auth === 'missing' ? 'no' : 'a wrong'} key was answered ${String(r.status)}, not 401`,
          });
        }
        return;
      }
      if (auth === 'bearer' || auth === 'bare') {
        const other = auth === 'bare' ? 'bearer' : 'bare';
        if (r.status === 401) {
          if (letIn[other]) {
            ctx.judged('auth.form-rejected');
            formRejected(r, auth, ctx);
          } else refused[auth] ??= r;
          return;
        }
        if (!letIn[auth]) {
          letIn[auth] = true;
          const waiting = refused[other];
          if (waiting) {
            refused[other] = undefined;
            ctx.judged('auth.form-rejected');
            formRejected(waiting, other, ctx);
          }
        }
        if (r.req?.probe?.startsWith('auth.')) ctx.judged('auth.form-rejected');
      }
      const probe = r.req?.probe;
      const expect = r.req?.expect;
      if (probe === undefined || expect === undefined) return;
      const id = FAMILY[probe.split('.')[0] ?? ''];
      if (id === undefined) return;
      const accepted = r.status >= 200 && r.status < 300;
      const rejected = r.status >= 400 && r.status < 500;
      ctx.judged(id);
      if (expect === 'accept' && rejected) {
        ctx.emit({
          id,
          record: r,
          message: `probe ${probe} is within the contract's limits but was rejected with ${String(r.status)}`,
        });
      } else if (expect === 'reject' && accepted) {
        ctx.emit({
          id,
          record: r,
          message: `probe ${probe} is outside the contract's limits but was accepted with ${String(r.status)}`,
        });
      }
    },
  };
}

/**
 * The requests probe's `request.unknown-job` and `request.missing-input` (its method probes are
 * the route watch's). True when `r` was one of them.
 */
function judgeRequestProbe(r: ExchangeRecord, status: number, ctx: CheckContext): boolean {
  const probe = r.req?.probe;
  if (probe !== 'request.unknown-job' && probe !== 'request.missing-input') return false;
  // A refused key says nothing of either rule, nor does a refused method (request.method's).
  if (status === 401 || status === 403 || status === 405) return true;
  // A 404 to a body without input, from a route never seen answering, is the route's
  // (route.missing) or a wrong endpoint id's. (For an unknown job 404 is the right answer anyway.)
  if (probe === 'request.missing-input' && status === 404 && !ctx.routes.hasServed(r.op as QueueOperation))
    return true;
  ctx.judged(probe);
  if (probe === 'request.unknown-job' && status !== 404) {
    const shown = (r.body as { status?: unknown } | null | undefined)?.status;
    ctx.emit({
      id: probe,
      record: r,
      message: `${r.method} ${r.path}, a job id that never existed, was answered ${String(status)}${typeof shown === 'string' ? ` with status ${shown} in its body` : ''}; the contract says 404`,
    });
  }
  if (probe === 'request.missing-input' && status !== 400) {
    ctx.emit({
      id: probe,
      record: r,
      message: `a ${r.op} body without input was answered ${String(status)}; the contract says 400`,
    });
  }
  return true;
}
