import { LIMITS } from '../../../contracts/queue/limits.js';
import { WebhookBodySchema } from '../../../contracts/queue/schemas.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { JobstormRecord } from '../../core/record.js';
import type { TimelineEntry } from '../../core/violation.js';
import type { Check, CheckContext } from '../check.js';
import type { JobState } from '../job-book.js';
import { firstTime } from '../fired-rules.js';
import { entriesOf } from '../job-timeline.js';
import { fastValidator } from '../fast-validator.js';
import { untrim } from '../untrim.js';

/**
 * `webhook.*`: every job that asked for a webhook gets one with a body like /status and the job's
 * final state; a non-200 answer brings exactly 2 more attempts about 10 s apart; a 200 ends it.
 * A job's deliveries are judged when the book folds it, long after the last retry was due.
 */
export function webhookCheck(): Check {
  let latest = 0;

  const judge = (job: JobState, ctx: CheckContext): void => {
    // A job polled after it was folded comes back and is folded again; its deliveries were judged.
    if (!job.webhook || job.retries > 0 || !firstTime(job, 'webhook.judged')) return;
    const t = ctx.tolerances;
    const d = job.deliveries;
    const finalAt = job.finalAt;
    // The entries are made only for a finding: most webhook jobs are judged and pass.
    const timeline = (): TimelineEntry[] => entriesOf(job.timeline);
    if (d.length === 0) {
      if (finalAt !== undefined && isFinalStatus(job.last) && latest - finalAt > t.webhookWaitMs)
        ctx.judged('webhook.missing');
      if (
        finalAt !== undefined &&
        isFinalStatus(job.last) &&
        latest - finalAt > t.webhookWaitMs &&
        job.finalRecord
      ) {
        ctx.emit({
          id: 'webhook.missing',
          record: job.finalRecord,
          jobId: job.id,
          timeline: timeline(),
          at: finalAt,
          message: `job ${job.id} asked for a webhook and ended ${String(job.last)}, but no delivery came within ${String(t.webhookWaitMs / 1000)} s`,
        });
      }
      return;
    }
    ctx.judged('webhook.missing');
    for (const x of d) {
      if (isFinalStatus(job.last) && isFinalStatus(x.status)) ctx.judged('webhook.status-mismatch');
      if (isFinalStatus(job.last) && isFinalStatus(x.status) && x.status !== job.last) {
        ctx.emit({
          id: 'webhook.status-mismatch',
          record: x.record,
          jobId: job.id,
          timeline: timeline(),
          at: x.at,
          message: `webhook for job ${job.id} said ${String(x.status)}, but the job ended ${String(job.last)}`,
        });
        break;
      }
    }
    const firstOk = d.findIndex((x) => x.answered === 200);
    // Our 200 to a delivery read after our own loop was held up went back late: the service may
    // have given up on that attempt before it came, and rightly tried again. Nothing to judge.
    const okInTime = firstOk >= 0 && d[firstOk]?.record.loopGapMs === undefined;
    if (okInTime) ctx.judged('webhook.duplicate');
    const extra = d[firstOk + 1];
    if (okInTime && extra) {
      ctx.emit({
        id: 'webhook.duplicate',
        record: extra.record,
        jobId: job.id,
        timeline: timeline(),
        at: d[firstOk + 1]?.at ?? 0,
        message: `job ${job.id}'s webhook came again after our receiver answered 200 (${String(d.length - firstOk - 1)} extra)`,
      });
    }
    const attempts = firstOk >= 0 ? firstOk + 1 : d.length;
    const expected = 1 + LIMITS.webhookRetries;
    const lastDue =
      (d[0]?.at ?? 0) + LIMITS.webhookRetries * LIMITS.webhookRetrySpacing + t.webhookSpacingMs * 2;
    const tooFew = firstOk < 0 && attempts < expected && latest > lastDue;
    // Retries are due only after a non-200 answer: only then is their count judged.
    if (d[0] && d[0].answered !== 200 && (firstOk >= 0 || latest > lastDue || attempts > expected))
      ctx.judged('webhook.retry-count');
    const lastTry = d[attempts - 1] ?? d[0];
    if ((tooFew || attempts > expected) && lastTry) {
      ctx.emit({
        id: 'webhook.retry-count',
        record: lastTry.record,
        jobId: job.id,
        timeline: timeline(),
        at: d[0]?.at ?? 0,
        message: `job ${job.id}'s webhook was tried ${String(attempts)} times after non-200 answers; the contract says ${String(expected)} in all`,
      });
    }
    for (let i = 1; i < attempts; i++) {
      const retry = d[i];
      if (!retry) break;
      ctx.judged('webhook.retry-spacing');
      const previous = d[i - 1];
      const gap = retry.at - (previous?.at ?? 0);
      // Either attempt may have come in before our held-up loop read it: the spacing is that unsure.
      const unsure = (retry.record.loopGapMs ?? 0) + (previous?.record.loopGapMs ?? 0);
      if (Math.abs(gap - LIMITS.webhookRetrySpacing) > t.webhookSpacingMs + unsure) {
        ctx.emit({
          id: 'webhook.retry-spacing',
          record: retry.record,
          jobId: job.id,
          timeline: timeline(),
          at: d[i]?.at ?? 0,
          message: `job ${job.id}'s webhook retry came ${String(Math.round(gap))} ms after the previous attempt; the contract says 10 s`,
        });
        break;
      }
    }
  };

  return {
    name: 'webhook',
    add(r: JobstormRecord, ctx) {
      if (r.type === 'exchange') latest = Math.max(latest, r.endAt);
      if (r.type !== 'webhook') return;
      latest = Math.max(latest, r.at);
      ctx.judged('webhook.schema');
      const body = untrim(r.body);
      if (fastValidator(WebhookBodySchema)?.(body) === true) return;
      const parsed = WebhookBodySchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        ctx.emit({
          id: 'webhook.schema',
          record: r,
          message: `webhook body breaks the status schema: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}`,
        });
      }
    },
    jobDone: judge,
  };
}
