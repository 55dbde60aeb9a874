import { CONNECT_ERROR_KINDS } from '../../core/request-error.js';
import { readHealth, type HealthRead, type HealthRejection } from '../../core/health-reading.js';
import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import { capCount, DEFAULT_RUN_LIMITS, type RunLimits } from '../../core/run-limits.js';
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

/**
 * Answers whose counts are judged though they give no reading: their `jobs` and `workers` are
 * there, and a negative count or a gauge that is missing or no count is the server's, not ours.
 */
const JUDGED: ReadonlySet<HealthRejection> = new Set(['negative', 'missing', 'not-a-count']);

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
  if (r.op !== 'run' && r.op !== 'runsync' && r.op !== 'retry') return false;
  // A submit that went out and got no answer (our timeout, a cut read) may have made its job: a
  // runsync held past our timeout did (seen on a starved host: /health counted 18 for 17 answered).
  // A runsync answered 404 made a job that its ttl ended during the wait (found by the lifecycle
  // fuzzer: /health counted the queued job before the runsync came back 404).
  if (r.op === 'runsync' && r.status === 404) return true;
  return r.status === 200 || (r.status === undefined && !CONNECT_ERROR_KINDS.has(r.error?.kind ?? 'refused'));
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

/** `health.negative`: a count below zero makes the answer no reading at all, for anyone. */
function judgeNegative(r: ExchangeRecord, read: HealthRead, ctx: CheckContext): void {
  const negative = !read.ok && read.reason === 'negative';
  const v = ctx.judge('health.negative', negative);
  if (v && !read.ok)
    ctx.emit(v, { record: r, message: `/health reported ${read.field ?? ''} = ${String(read.value)}` });
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
export function healthCheck(limits: Partial<Pick<RunLimits, 'healthSamples'>> = {}): Check {
  const maxSamples = limits.healthSamples ?? DEFAULT_RUN_LIMITS.healthSamples;
  let samplesLeftOut = 0;
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
      const read = readHealth(r);
      if (!read.ok && !JUDGED.has(read.reason)) return;
      judgeNegative(r, read, ctx);
      if (!read.ok) return;
      const c = read.reading;
      // A counter left out (some servers have none, or sent one that is no count) counts as 0.
      const jobs: Counters = {
        completed: c.completed ?? 0,
        failed: c.failed ?? 0,
        retried: c.retried ?? 0,
        inQueue: c.inQueue,
        inProgress: c.inProgress,
      };
      const sample = { record: r, jobs };
      if (previous && previous.record.endAt < r.sentAt) judgeDecrease(r, jobs, previous, ctx);
      if (!previous || previous.record.sentAt < r.sentAt) previous = sample;
      if (ctx.run.ownsEndpoint && ctx.run.shard === undefined) {
        if (samples.length < maxSamples) samples.push(sample);
        else samplesLeftOut++;
      }
    },
    finish: (ctx) => judgeTotals(samples, sends, ctx),
    caps: () => capCount('checks.health-samples', maxSamples, samplesLeftOut),
  };
}
