import { LIMITS } from '../../../contracts/queue/limits.js';
import { WebhookBodySchema } from '../../../contracts/queue/schemas.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { JobstormRecord, WebhookRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';
import type { Delivery, JobState } from '../job-book.js';
import { firstTime } from '../fired-rules.js';
import { entriesOf } from '../job-timeline.js';
import { fastValidator } from '../fast-validator.js';
import { untrim } from '../untrim.js';

/** `webhook.missing` for a job without deliveries: final, and waited for long enough. */
function judgeMissing(job: JobState, latest: number, ctx: CheckContext): void {
  const finalAt = job.finalAt;
  const wait = ctx.tolerances.webhookWaitMs;
  if (finalAt === undefined || !isFinalStatus(job.last) || latest - finalAt <= wait) return;
  const v = ctx.judge('webhook.missing', job.finalRecord !== undefined);
  if (v && job.finalRecord) {
    ctx.emit(v, {
      record: job.finalRecord,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      at: finalAt,
      message: `job ${job.id} asked for a webhook and ended ${String(job.last)}, but no delivery came within ${String(wait / 1000)} s`,
    });
  }
}

/** `webhook.status-mismatch`: each delivery that names a final state names the job's. */
function judgeStatuses(job: JobState, d: readonly Delivery[], ctx: CheckContext): void {
  if (!isFinalStatus(job.last)) return;
  for (const x of d) {
    if (!isFinalStatus(x.status)) continue;
    const v = ctx.judge('webhook.status-mismatch', x.status !== job.last);
    if (v) {
      ctx.emit(v, {
        record: x.record,
        jobId: job.id,
        timeline: entriesOf(job.timeline),
        at: x.at,
        message: `webhook for job ${job.id} said ${String(x.status)}, but the job ended ${String(job.last)}`,
      });
      break;
    }
  }
}

/** `webhook.duplicate`: nothing after the delivery our receiver answered 200 (in time). */
function judgeDuplicate(job: JobState, d: readonly Delivery[], firstOk: number, ctx: CheckContext): void {
  // Our 200 to a delivery read after our own loop was held up went back late: the service may
  // have given up on that attempt before it came, and rightly tried again. Nothing to judge.
  if (firstOk < 0 || d[firstOk]?.record.loopGapMs !== undefined) return;
  const extra = d[firstOk + 1];
  const v = ctx.judge('webhook.duplicate', extra !== undefined);
  if (v && extra) {
    ctx.emit(v, {
      record: extra.record,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      at: extra.at,
      message: `job ${job.id}'s webhook came again after our receiver answered 200 (${String(d.length - firstOk - 1)} extra)`,
    });
  }
}

/** `webhook.retry-count`: after non-200 answers, exactly the contract's retries in all. */
function judgeRetryCount(
  job: JobState,
  d: readonly Delivery[],
  firstOk: number,
  attempts: number,
  latest: number,
  ctx: CheckContext,
): void {
  const first = d[0];
  // Retries are due only after a non-200 answer: only then is their count judged.
  if (!first || first.answered === 200) return;
  const expected = 1 + LIMITS.webhookRetries;
  const lastDue =
    first.at + LIMITS.webhookRetries * LIMITS.webhookRetrySpacing + ctx.tolerances.webhookSpacingMs * 2;
  if (firstOk < 0 && latest <= lastDue && attempts <= expected) return;
  // Past here, no 200 and too few attempts means the last retry was due long ago.
  const tooFew = firstOk < 0 && attempts < expected;
  const lastTry = d[attempts - 1] ?? first;
  const v = ctx.judge('webhook.retry-count', tooFew || attempts > expected);
  if (v) {
    ctx.emit(v, {
      record: lastTry.record,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      at: first.at,
      message: `job ${job.id}'s webhook was tried ${String(attempts)} times after non-200 answers; the contract says ${String(expected)} in all`,
    });
  }
}

/** `webhook.retry-spacing`: each retry about 10 s after the attempt before it. */
function judgeSpacing(job: JobState, d: readonly Delivery[], attempts: number, ctx: CheckContext): void {
  let previous: Delivery | undefined;
  for (const retry of d.slice(0, attempts)) {
    if (previous) {
      const gap = retry.at - previous.at;
      // Either attempt may have come in before our held-up loop read it: the spacing is that unsure.
      const unsure = (retry.record.loopGapMs ?? 0) + (previous.record.loopGapMs ?? 0);
      const v = ctx.judge(
        'webhook.retry-spacing',
        Math.abs(gap - LIMITS.webhookRetrySpacing) > ctx.tolerances.webhookSpacingMs + unsure,
      );
      if (v) {
        ctx.emit(v, {
          record: retry.record,
          jobId: job.id,
          timeline: entriesOf(job.timeline),
          at: retry.at,
          message: `job ${job.id}'s webhook retry came ${String(Math.round(gap))} ms after the previous attempt; the contract says 10 s`,
        });
        break;
      }
    }
    previous = retry;
  }
}

/** A job's deliveries, judged when the book folds it, long after the last retry was due. */
function judgeDeliveries(job: JobState, latest: number, ctx: CheckContext): void {
  // A job polled after it was folded comes back and is folded again; its deliveries were judged.
  if (!job.webhook || job.retries > 0 || !firstTime(job, 'webhook.judged')) return;
  const d = job.deliveries;
  if (d.length === 0) {
    judgeMissing(job, latest, ctx);
    return;
  }
  ctx.judge('webhook.missing', false);
  judgeStatuses(job, d, ctx);
  const firstOk = d.findIndex((x) => x.answered === 200);
  // The attempts up to our first 200: deliveries after it are duplicates, not retries.
  const attempts = firstOk >= 0 ? firstOk + 1 : d.length;
  judgeDuplicate(job, d, firstOk, ctx);
  judgeRetryCount(job, d, firstOk, attempts, latest, ctx);
  judgeSpacing(job, d, attempts, ctx);
}

/** What the run does with a body that names no job (the deviations list cuts it off at "; jobstorm"). */
const ADAPTED_NOTE =
  '; jobstorm reads each such delivery as the job whose webhook URL it came to (records marked adaptedShape no-id), and goes on judging its deliveries';

/** `webhook.schema`: every delivery's body is like /status. */
function judgeBody(r: WebhookRecord, ctx: CheckContext): void {
  const body = untrim(r.body);
  const parsed =
    fastValidator(WebhookBodySchema)?.(body) === true ? undefined : WebhookBodySchema.safeParse(body);
  const v = ctx.judge('webhook.schema', parsed?.success === false);
  if (v) {
    const issue = parsed?.error?.issues[0];
    ctx.emit(v, {
      record: r,
      message: `webhook body breaks the status schema: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}${r.adaptedShape === 'no-id' ? ADAPTED_NOTE : ''}`,
    });
  }
}

/**
 * `webhook.*`: every job that asked for a webhook gets one with a body like /status and the job's
 * final state; a non-200 answer brings exactly 2 more attempts about 10 s apart; a 200 ends it.
 * A job's deliveries are judged when the book folds it, long after the last retry was due.
 */
export function webhookCheck(): Check {
  let latest = 0;
  return {
    name: 'webhook',
    ids: [
      'webhook.missing',
      'webhook.schema',
      'webhook.status-mismatch',
      'webhook.retry-count',
      'webhook.retry-spacing',
      'webhook.duplicate',
    ],
    add(r: JobstormRecord, ctx) {
      if (r.type === 'exchange') latest = Math.max(latest, r.endAt);
      if (r.type !== 'webhook') return;
      latest = Math.max(latest, r.at);
      judgeBody(r, ctx);
    },
    jobDone: (job, ctx) => judgeDeliveries(job, latest, ctx),
  };
}
