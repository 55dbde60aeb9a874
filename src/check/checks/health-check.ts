import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import type { Check, CheckContext } from '../check.js';

interface Counters {
  completed: number;
  failed: number;
  retried: number;
  inQueue: number;
  inProgress: number;
}

interface Sample {
  record: ExchangeRecord;
  jobs: Counters;
}

function countersOf(
  body: unknown,
): { jobs: Record<string, unknown>; workers: Record<string, unknown> } | undefined {
  const b = body as { jobs?: unknown; workers?: unknown } | undefined;
  if (
    !b ||
    typeof b.jobs !== 'object' ||
    b.jobs === null ||
    typeof b.workers !== 'object' ||
    b.workers === null
  )
    return undefined;
  return { jobs: b.jobs as Record<string, unknown>, workers: b.workers as Record<string, unknown> };
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** Submits and retries we sent, bucketed by 100 ms of send time: enough to bound counts. */
type Sends = Map<number, number>;

function countSend(sends: Sends, sentAt: number): void {
  const b = Math.floor(sentAt / 100);
  sends.set(b, (sends.get(b) ?? 0) + 1);
}

/** A job of ours was (or may have been) made by this exchange. */
function isSubmit(r: ExchangeRecord): boolean {
  // An /openai/* completion is a job from the moment it is admitted; a 5xx or a cut read may
  // still have been one (an upper bound may count too many, never too few).
  if (r.op === 'openai')
    return r.method === 'POST' && (r.status === undefined || r.status === 200 || r.status >= 500);
  return r.status === 200 && (r.op === 'run' || r.op === 'runsync' || r.op === 'retry');
}

function judgeTotals(samples: readonly Sample[], sends: Sends, ctx: CheckContext): void {
  const buckets = [...sends.entries()].sort((a, b) => a[0] - b[0]);
  for (const s of samples) {
    let sent = 0;
    for (const [bucket, n] of buckets) {
      if (bucket * 100 > s.record.endAt) break;
      sent += n;
    }
    const seen = s.jobs.completed + s.jobs.failed + s.jobs.inQueue + s.jobs.inProgress;
    const v = ctx.judge('health.jobs-mismatch', seen > sent);
    if (v) {
      ctx.emit(v, {
        record: s.record,
        message: `/health counts ${String(seen)} jobs (completed + failed + queued + running), but we had sent only ${String(sent)} submits and retries to this endpoint by then`,
      });
      return;
    }
  }
}

function judgeNegative(
  r: ExchangeRecord,
  c: NonNullable<ReturnType<typeof countersOf>>,
  ctx: CheckContext,
): void {
  const negative = [
    ...Object.entries(c.jobs).map(([k, v]) => [`jobs.${k}`, v] as const),
    ...Object.entries(c.workers).map(([k, v]) => [`workers.${k}`, v] as const),
  ].find(([, v]) => typeof v === 'number' && v < 0);
  const v = ctx.judge('health.negative', negative !== undefined);
  if (v && negative)
    ctx.emit(v, { record: r, message: `/health reported ${negative[0]} = ${String(negative[1])}` });
}

/** The counters that only grow. */
const MONOTONIC = ['completed', 'failed', 'retried'] as const;

/** Completed, failed and retried never go down between two samples that did not overlap in flight. */
function judgeDecrease(r: ExchangeRecord, jobs: Counters, previous: Sample, ctx: CheckContext): void {
  let key: (typeof MONOTONIC)[number] | undefined;
  for (const k of MONOTONIC) {
    if (jobs[k] < previous.jobs[k]) {
      key = k;
      break;
    }
  }
  const v = ctx.judge('health.counter-decreased', key !== undefined);
  if (v && key)
    ctx.emit(v, {
      record: r,
      message: `/health jobs.${key} went down from ${String(previous.jobs[key])} to ${String(jobs[key])}`,
    });
}

/**
 * `health.*`: counters never negative; completed, failed and retried never go down between two
 * samples that did not overlap in flight; on an endpoint we own, the counts never exceed what we
 * submitted (judged at the end, once every submit's send time is known).
 */
export function healthCheck(): Check {
  let previous: Sample | undefined;
  const samples: Sample[] = [];
  const sends: Sends = new Map();
  return {
    name: 'health',
    ids: ['health.negative', 'health.counter-decreased', 'health.jobs-mismatch'],
    add(r: JobstormRecord, ctx) {
      if (r.type !== 'exchange') return;
      if (isSubmit(r)) {
        countSend(sends, r.sentAt);
        return;
      }
      if (r.status !== 200 || r.op !== 'health') return;
      const c = countersOf(r.body);
      if (!c) return;
      judgeNegative(r, c, ctx);
      const jobs: Counters = {
        completed: num(c.jobs.completed),
        failed: num(c.jobs.failed),
        retried: num(c.jobs.retried),
        inQueue: num(c.jobs.inQueue),
        inProgress: num(c.jobs.inProgress),
      };
      const sample = { record: r, jobs };
      if (previous && previous.record.endAt < r.sentAt) judgeDecrease(r, jobs, previous, ctx);
      if (!previous || previous.record.sentAt < r.sentAt) previous = sample;
      if (ctx.run.ownsEndpoint && ctx.run.shard === undefined && samples.length < 10_000)
        samples.push(sample);
    },
    finish: (ctx) => judgeTotals(samples, sends, ctx),
  };
}
