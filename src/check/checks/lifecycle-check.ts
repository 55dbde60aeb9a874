import { LIMITS } from '../../../contracts/queue/limits.js';
import { isFinalStatus } from '../../core/job-status.js';
import { earliestEndAt, writtenAt, type ExchangeRecord, type JobstormRecord } from '../../core/record.js';
import type { QueueOperation } from '../../core/operation.js';
import type { Check, CheckContext } from '../check.js';
import type { JobState } from '../job-book.js';
import { entriesOf, observationsIn } from '../job-timeline.js';
import { firstTime } from '../fired-rules.js';

const JOB_OPS = new Set(['status', 'status-sync', 'stream', 'cancel', 'retry']);
/** Only these say whether the service has the job: a 404 elsewhere may be a route it lacks. */
const LOOKUP_OPS = new Set(['status', 'status-sync']);
/**
 * Operations on one job whose 404, once the operation is known to be served (it answered 2xx
 * before), is about the job: the route watch leaves it (never both `route.missing` and this).
 */
const ACTION_OPS = new Set(['stream', 'cancel', 'retry']);

/** Whether a 404 from `r.op` says the service does not have the job (rather than the route). */
function speaksForJob(r: ExchangeRecord, ctx: CheckContext): boolean {
  if (ctx.routes.isMissing(r.op)) return false;
  if (LOOKUP_OPS.has(r.op)) return true;
  return ACTION_OPS.has(r.op) && ctx.routes.hasServed(r.op as QueueOperation);
}

function retentionOf(job: JobState): { min: number; max: number } {
  return job.via === 'runsync'
    ? { min: LIMITS.retentionRunsync, max: LIMITS.retentionRunsyncMax }
    : { min: LIMITS.retentionRun, max: LIMITS.retentionRun };
}

/** Latest instant by which the service must still have the job: a 404 before it is a lost job. */
function mustExistUntil(job: JobState, submittedAt: number): number {
  const ttlEnd = job.ttlDeadline ?? submittedAt + (job.ttl ?? LIMITS.ttl.default);
  // It cannot have finished before we last saw it unfinished.
  const lastAlive = Math.max(submittedAt, job.queuedAt ?? 0, job.startedBy ?? 0);
  return Math.min(ttlEnd, lastAlive + retentionOf(job).min);
}

/**
 * A /status 404 before the job's ttl and retention could have ended. It is a candidate until the
 * job is folded: a later answer that shows the job again withdraws it (the service was slow to see
 * a new job, or answered from a replica), and so does a /status route that never answered 2xx.
 */
function lostCandidate(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  if (job.submittedAt === undefined || !speaksForJob(r, ctx)) return;
  const until = mustExistUntil(job, job.submittedAt);
  if (r.endAt + ctx.tolerances.clockSkewMs < until) job.lostCandidate ??= r;
}

function judgeLost(job: JobState, ctx: CheckContext): void {
  const r = job.lostCandidate;
  if (!r || job.submittedAt === undefined || !speaksForJob(r, ctx)) return;
  if (LOOKUP_OPS.has(r.op) && !ctx.routes.hasServed('status')) return;
  if (!firstTime(job, 'lifecycle.lost')) return;
  const until = mustExistUntil(job, job.submittedAt);
  ctx.emit(ctx.settle('lifecycle.lost'), {
    record: r,
    jobId: job.id,
    timeline: entriesOf(job.timeline),
    message: `${r.op} answered 404 for job ${job.id} ${String(Math.round((until - r.endAt) / 1000))} s before its ttl or retention could have ended, and no later answer showed the job again`,
  });
}

/**
 * A served /cancel, /retry or /stream answered 404 for the job before its ttl and retention could
 * have ended, and this answer shows the service still has it: the operation lost the job, though
 * the service did not. (A /status 404 followed by the job is a slow replica, and is withdrawn.)
 */
function deniedThenShown(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  const denied = job.lostCandidate;
  // Such a 404 was a candidate only once its operation had answered 2xx, and a route once served
  // is never found missing: it still speaks for the job.
  if (!denied || LOOKUP_OPS.has(denied.op)) return;
  if (!firstTime(job, 'lifecycle.lost')) return;
  const shown = (r.body as { status?: unknown } | undefined)?.status;
  ctx.emit(ctx.settle('lifecycle.lost'), {
    record: denied,
    jobId: job.id,
    timeline: entriesOf(job.timeline),
    message: `${denied.method} ${denied.op} answered 404 for job ${job.id}, ${((denied.endAt - (job.submittedAt ?? denied.endAt)) / 1000).toFixed(1)} s after it was accepted, though ${r.op} then still showed the job${typeof shown === 'string' ? ` (${shown})` : ''} (record ${String(r.seq)}): the operation lost a job the service has`,
  });
}

function stillServed(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  if (job.acceptedAt === undefined) return;
  const grace = ctx.tolerances.expiryGraceMs + ctx.tolerances.clockSkewMs;
  const ttlEnd = job.ttlDeadline ?? job.acceptedAt + (job.ttl ?? LIMITS.ttl.default);
  const ttl =
    r.sentAt > ttlEnd + grace && ctx.judge('lifecycle.ttl-ignored', firstTime(job, 'lifecycle.ttl-ignored'));
  if (ttl) {
    ctx.emit(ttl, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `job ${job.id} still served ${String(Math.round((r.sentAt - ttlEnd) / 1000))} s after its ttl ended`,
    });
    return;
  }
  const finalBy = job.finalAt;
  if (finalBy === undefined || !isFinalStatus(job.last)) return;
  const retentionEnd = finalBy + retentionOf(job).max;
  const retention =
    r.sentAt > retentionEnd + grace &&
    ctx.judge('lifecycle.retention-ignored', firstTime(job, 'lifecycle.retention-ignored'));
  if (retention) {
    ctx.emit(retention, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `job ${job.id} still served ${String(Math.round((r.sentAt - retentionEnd) / 1000))} s after its results' retention ended`,
    });
  }
}

function timeouts(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  const body = r.body as { status?: unknown; executionTime?: unknown } | undefined;
  const limit = job.executionTimeout ?? LIMITS.executionTimeout.default;
  const reported = typeof body?.executionTime === 'number' ? body.executionTime : undefined;
  const status = body?.status;
  const { clockSkewMs, timeoutGraceMs } = ctx.tolerances;
  if (status === 'TIMED_OUT') {
    // Upper bound of how long it could have run: from the last time it was seen queued.
    const ranAtMost = reported ?? r.endAt - (job.queuedAt ?? job.submittedAt ?? r.endAt);
    const early = ctx.judge(
      'lifecycle.timeout-early',
      ranAtMost + clockSkewMs < limit && firstTime(job, 'lifecycle.timeout-early'),
    );
    if (early) {
      ctx.emit(early, {
        record: r,
        jobId: job.id,
        timeline: entriesOf(job.timeline),
        message: `job ${job.id} TIMED_OUT after at most ${String(ranAtMost)} ms; its executionTimeout is ${String(limit)} ms`,
      });
    }
    return;
  }
  let ranAtLeast = status === 'COMPLETED' || status === 'FAILED' ? (reported ?? 0) : 0;
  if (status === 'IN_PROGRESS' && job.startedBy !== undefined)
    ranAtLeast = Math.max(ranAtLeast, r.sentAt - job.startedBy);
  // Exercised once a job was seen running (or done) long enough that a timeout could be due.
  // (The tolerances are never negative: a job past the grace is past its limit.)
  const ignored =
    ranAtLeast > limit &&
    ctx.judge(
      'lifecycle.timeout-ignored',
      ranAtLeast > limit + timeoutGraceMs + clockSkewMs && firstTime(job, 'lifecycle.timeout-ignored'),
    );
  if (ignored) {
    ctx.emit(ignored, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `job ${job.id} ran at least ${String(ranAtLeast)} ms, past its executionTimeout of ${String(limit)} ms, without timing out`,
    });
  }
}

function waitExceeded(r: ExchangeRecord, ctx: CheckContext): void {
  if (r.op !== 'runsync' && r.op !== 'status-sync') return;
  const wait = r.req?.wait ?? LIMITS.wait.default;
  // The service's wait starts when it reads the request: not before it went onto a connection.
  // And its answer may have come in before a held-up loop of ours read it.
  const took = earliestEndAt(r) - writtenAt(r);
  const v = ctx.judge('lifecycle.runsync-wait-exceeded', took > wait + ctx.tolerances.waitGraceMs);
  if (v) {
    const queued =
      (r.queuedMs ?? 0) < 100
        ? ''
        : ` (counted from when it went onto a connection, after ${String(Math.round(r.queuedMs ?? 0))} ms waiting for a free one)`;
    ctx.emit(v, {
      record: r,
      message: `${r.op} answered after ${String(Math.round(took))} ms${queued}; wait was ${String(wait)} ms`,
    });
  }
}

function timing(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  const body = r.body as { status?: unknown; delayTime?: unknown; executionTime?: unknown } | undefined;
  if (body?.status !== 'COMPLETED' || job.submittedAt === undefined || job.retries > 0) return;
  if (typeof body.delayTime !== 'number' || typeof body.executionTime !== 'number') return;
  const observedLife = r.endAt - job.submittedAt;
  const reported = body.delayTime + body.executionTime;
  const v = ctx.judge(
    'lifecycle.timing-inconsistent',
    reported > observedLife + ctx.tolerances.timingSlackMs && firstTime(job, 'lifecycle.timing-inconsistent'),
  );
  if (v) {
    ctx.emit(v, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `delayTime + executionTime = ${String(reported)} ms, but the job existed for at most ${String(Math.round(observedLife))} ms as we saw it`,
    });
  }
}

function purgeRunning(r: ExchangeRecord, job: JobState, ctx: CheckContext): void {
  // Our own cancel's answer is CANCELLED by our doing (its action joins the timeline after it).
  if (r.op === 'cancel' || (r.body as { status?: unknown } | undefined)?.status !== 'CANCELLED') return;
  const seen = [...observationsIn(job.timeline)];
  // A cancel of ours, before or after the purge, may be what cancelled it (found by the lifecycle
  // fuzzer on the faithful emulator: a running job purged around, then cancelled by us).
  if (seen.some((o) => o.kind === 'action' && o.action === 'cancel')) return;
  let sawRunning = false;
  for (const o of seen) {
    if (o.kind === 'status') sawRunning = o.status === 'IN_PROGRESS';
    if (o.kind !== 'action' || o.action !== 'purge') continue;
    const v = ctx.judge('lifecycle.purge-running', sawRunning && firstTime(job, 'lifecycle.purge-running'));
    if (v) {
      ctx.emit(v, {
        record: r,
        jobId: job.id,
        timeline: entriesOf(job.timeline),
        message: `job ${job.id} was IN_PROGRESS when we purged the queue, and came out CANCELLED: purge must leave running jobs alone`,
      });
    }
    if (sawRunning) return;
  }
}

/** `lifecycle.*`: ttl, retention, executionTimeout, runsync wait, purge and timing rules. */
export const lifecycleCheck: Check = {
  name: 'lifecycle',
  ids: [
    'lifecycle.lost',
    'lifecycle.ttl-ignored',
    'lifecycle.retention-ignored',
    'lifecycle.timeout-ignored',
    'lifecycle.timeout-early',
    'lifecycle.runsync-wait-exceeded',
    'lifecycle.timing-inconsistent',
    'lifecycle.purge-running',
  ],
  add(r: JobstormRecord, ctx) {
    if (r.type !== 'exchange' || r.status === undefined) return;
    if (r.status === 200) waitExceeded(r, ctx);
    if (!JOB_OPS.has(r.op) && r.op !== 'runsync') return;
    const id = ctx.job.jobId;
    const job = id === undefined ? undefined : ctx.jobs.get(id);
    if (!job) return;
    // Every lookup of a job we submitted could have found it gone. Whether a 404 did is settled
    // when the job is folded (a later answer may show it again): see `judgeLost`.
    if (job.submittedAt !== undefined && speaksForJob(r, ctx)) ctx.judge('lifecycle.lost', false);
    if (r.status === 404) {
      lostCandidate(r, job, ctx);
      return;
    }
    if (r.status !== 200) return;
    deniedThenShown(r, job, ctx);
    stillServed(r, job, ctx);
    timeouts(r, job, ctx);
    timing(r, job, ctx);
    purgeRunning(r, job, ctx);
  },
  jobDone: judgeLost,
};
