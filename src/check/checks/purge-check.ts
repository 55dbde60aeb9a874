import type { ExchangeRecord } from '../../core/record.js';
import { isFinalStatus } from '../../core/job-status.js';
import type { Check, CheckContext } from '../check.js';
import { entriesOf } from '../job-timeline.js';
import type { JobState } from '../job-state.js';

interface PendingPurge {
  record: ExchangeRecord;
  removed: number;
}

/** Submits still in flight when a purge answers; their records arrive later, so judge after this. */
const SETTLE_MS = 30_000;

/**
 * `lifecycle.purge-count`: a purge must remove every job waiting in the queue. It fires when a job
 * of ours, accepted before the purge was sent, is seen IN_QUEUE after the purge answered (it was
 * left behind), and, on an endpoint we own, when `removed` exceeds the jobs of ours that could
 * have been waiting.
 */
export function purgeCheck(): Check {
  const pending: PendingPurge[] = [];
  const lastPurge: { record?: ExchangeRecord } = {};

  const judgeCount = (p: PendingPurge, ctx: CheckContext): void => {
    let couldWait = 0;
    // Folded jobs count too: the purge is judged 30 s after it answered, when the jobs it
    // cancelled have long been final and folded.
    for (const job of ctx.jobs.known()) {
      if (job.submittedAt === undefined || job.submittedAt > p.record.endAt) continue;
      // A job never shown final (or running) was neither when the purge was sent.
      const doneBefore = isFinalStatus(job.last) && finalBefore(job, p.record.sentAt);
      const runningBefore = (job.startedBy ?? Infinity) < p.record.sentAt;
      if (!doneBefore && !runningBefore) couldWait++;
    }
    const v = ctx.judge('lifecycle.purge-count', p.removed > couldWait);
    if (v) {
      ctx.emit(v, {
        record: p.record,
        message: `purge-queue reported removed=${String(p.removed)}, but at most ${String(couldWait)} jobs could have been waiting on this endpoint`,
      });
    }
  };

  return {
    name: 'purge',
    ids: ['lifecycle.purge-count'],
    add(r, ctx) {
      if (r.type !== 'exchange' || r.status !== 200) return;
      if (r.op === 'purge-queue') {
        lastPurge.record = r;
        const removed = (r.body as { removed?: unknown } | undefined)?.removed;
        if (ctx.run.ownsEndpoint && ctx.run.shard === undefined && typeof removed === 'number')
          pending.push({ record: r, removed });
      } else if (lastPurge.record && (r.op === 'status' || r.op === 'status-sync')) {
        judgeLeftBehind(r, lastPurge.record, ctx);
      }
      for (let p = pending[0]; p !== undefined && p.record.endAt + SETTLE_MS < r.endAt; p = pending[0]) {
        pending.shift();
        judgeCount(p, ctx);
      }
    },
    finish(ctx) {
      for (const p of pending.splice(0)) judgeCount(p, ctx);
    },
  };
}

/** A job of ours, accepted before the purge was sent, seen IN_QUEUE after it answered: left behind. */
function judgeLeftBehind(r: ExchangeRecord, purge: ExchangeRecord, ctx: CheckContext): void {
  // The fold read the record's job and the state its body showed (CheckContext.job).
  const id = ctx.job.jobId;
  const job = id === undefined ? undefined : ctx.jobs.get(id);
  if (job?.acceptedAt === undefined) return;
  const queuedBefore = job.acceptedAt < purge.sentAt && r.sentAt > purge.endAt && job.retries === 0;
  if (!queuedBefore) return;
  const v = ctx.judge('lifecycle.purge-count', ctx.job.shown === 'IN_QUEUE');
  if (v) {
    ctx.emit(v, {
      record: r,
      jobId: job.id,
      timeline: entriesOf(job.timeline),
      message: `job ${job.id} was queued before the purge at ${String(Math.round(purge.sentAt))} ms and is still IN_QUEUE after it: purge must remove every waiting job`,
    });
  }
}

/**
 * The job was final before `at`, as far as the records can tell. `finalAt` is when the request
 * that first showed it final was sent: enough for a job that completed, failed or timed out. A
 * CANCELLED one may have been cancelled by the purge itself (a runsync waiting in the queue, sent
 * before the purge and answered CANCELLED after it was sent: found by the fuzzer on the faithful
 * emulator), so it was final before only if that answer came back before `at`.
 */
function finalBefore(job: JobState, at: number): boolean {
  if (job.last !== 'CANCELLED') return (job.finalAt ?? Infinity) < at;
  const r = job.finalRecord;
  return r !== undefined && r.type === 'exchange' && r.endAt < at;
}
