import type { QueueOperation } from '../../core/operation.js';
import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import type { CheckId } from '../catalog.js';
import type { Check, CheckContext } from '../check.js';

const FAMILY: Record<string, CheckId> = {
  payload: 'limits.payload',
  wait: 'limits.wait',
  ttl: 'limits.ttl',
  executionTimeout: 'limits.execution-timeout',
};

type Form = 'bearer' | 'bare';

/** What a run has seen of its key so far, across records. */
interface KeySeen {
  letIn: Record<Form, boolean>;
  /** First refusal per form, waiting for the other form to be let in. */
  refused: Partial<Record<Form, ExchangeRecord>>;
  openReported: boolean;
}

/** `auth.form-rejected`: `r` refused in `form` while the same key was let in the other form. */
function formRejected(r: ExchangeRecord, form: Form, ctx: CheckContext): void {
  const v = ctx.judge('auth.form-rejected', true);
  if (v) {
    ctx.emit(v, {
      record: r,
      message: `a good key sent in the ${form === 'bare' ? 'bare' : 'Bearer'} form was refused with 401, while the same key in the ${form === 'bare' ? 'Bearer' : 'bare'} form was let in`,
    });
  }
}

/** A run without a key (`--auth none`): the target's openness is one finding, not one per request. */
function judgeNoKey(r: ExchangeRecord, status: number, seen: KeySeen, ctx: CheckContext): void {
  const v = ctx.judge('auth.missing-key-accepted', status !== 401 && !seen.openReported);
  if (!v) return;
  seen.openReported = true;
  ctx.emit(v, {
    record: r,
    message: `this target answers requests without a key (${String(status)} here, and the run sent none); the contract says 401`,
  });
}

function judgeBadKey(r: ExchangeRecord, status: number, auth: 'missing' | 'wrong', ctx: CheckContext): void {
  const v = ctx.judge(`auth.${auth}-key-accepted`, status !== 401);
  if (v) {
    ctx.emit(v, {
      record: r,
      message: `a request with ${auth === 'missing' ? 'no' : 'a wrong'} key was answered ${String(status)}, not 401`,
    });
  }
}

/** Our key in one form. True when the record is done with (a refusal, judged or kept waiting). */
function judgeForm(r: ExchangeRecord, status: number, auth: Form, seen: KeySeen, ctx: CheckContext): boolean {
  const other = auth === 'bare' ? 'bearer' : 'bare';
  if (status === 401) {
    if (seen.letIn[other]) formRejected(r, auth, ctx);
    else seen.refused[auth] ??= r;
    return true;
  }
  seen.letIn[auth] = true;
  const waiting = seen.refused[other];
  if (waiting) {
    seen.refused[other] = undefined;
    formRejected(waiting, other, ctx);
  }
  if (r.req?.probe?.startsWith('auth.')) ctx.judge('auth.form-rejected', false);
  return false;
}

/** `limits.*`: a probe carries whether the contract accepts or rejects it. */
function judgeLimits(r: ExchangeRecord, status: number, ctx: CheckContext): void {
  const probe = r.req?.probe;
  const expect = r.req?.expect;
  if (probe === undefined || expect === undefined) return;
  const id = FAMILY[probe.split('.')[0] ?? ''];
  if (id === undefined) return;
  const accepted = status >= 200 && status < 300;
  // 4xx: `add` leaves 5xx out.
  const rejected = status >= 400;
  const v = ctx.judge(id, (expect === 'accept' && rejected) || (expect === 'reject' && accepted));
  if (v) {
    ctx.emit(v, {
      record: r,
      message:
        expect === 'accept'
          ? `probe ${probe} is within the contract's limits but was rejected with ${String(status)}`
          : `probe ${probe} is outside the contract's limits but was accepted with ${String(status)}`,
    });
  }
}

/**
 * `limits.*` and `auth.*`: probes carry what the contract expects of them (accept or reject, or an
 * auth form), so the verdict is a comparison. 429 and transport errors say nothing either way.
 *
 * A 401 to our key in one form is `auth.form-rejected` only once the same key was let in (any
 * non-401 answer) in the other form: when every request with the key is refused, the key itself
 * is wrong, and that is the run's verdict (inconclusive), not a finding about the target.
 */
export function probeCheck(): Check {
  const seen: KeySeen = { letIn: { bearer: false, bare: false }, refused: {}, openReported: false };
  return {
    name: 'probe',
    ids: [
      'auth.missing-key-accepted',
      'auth.wrong-key-accepted',
      'auth.form-rejected',
      ...Object.values(FAMILY),
      'request.unknown-job',
      'request.missing-input',
    ],
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange' || r.status === undefined || r.status === 429 || r.status >= 500) return;
      if (judgeRequestProbe(r, r.status, ctx)) return;
      const auth = r.req?.auth;
      if (auth === 'none') judgeNoKey(r, r.status, seen, ctx);
      else if (auth === 'missing' || auth === 'wrong') judgeBadKey(r, r.status, auth, ctx);
      else if ((auth === 'bearer' || auth === 'bare') && judgeForm(r, r.status, auth, seen, ctx)) return;
      else judgeLimits(r, r.status, ctx);
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
  if (probe === 'request.unknown-job') {
    const v = ctx.judge(probe, status !== 404);
    const shown = (r.body as { status?: unknown } | null | undefined)?.status;
    if (v)
      ctx.emit(v, {
        record: r,
        message: `${r.method} ${r.path}, a job id that never existed, was answered ${String(status)}${typeof shown === 'string' ? ` with status ${shown} in its body` : ''}; the contract says 404`,
      });
    return true;
  }
  const v = ctx.judge(probe, status !== 400);
  if (v)
    ctx.emit(v, {
      record: r,
      message: `a ${r.op} body without input was answered ${String(status)}; the contract says 400`,
    });
  return true;
}
