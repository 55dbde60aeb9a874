import type { ScalingExpectation } from '../../core/scaling-expectation.js';
import { capCount, DEFAULT_RUN_LIMITS, type RunLimits } from '../../core/run-limits.js';
import type { CheckId } from '../catalog.js';
import type { Check, CheckContext } from '../check.js';
import { finishedOf, healthReadingOf, workersOf, type HealthReading } from '../../core/health-reading.js';
import { countsText } from '../counts-text.js';
import { QueueSpans, queuedCallingForWorkers, type SpanIndex } from '../../fold/queue-spans.js';
import { ScalingExpected } from '../scaling-expected.js';

const NO_INITIALIZING =
  '/health does not report workers.initializing, so a worker starting cannot be told from one that was already on its way';

/** What the four rules share at the end of the run. */
interface Judging {
  readonly samples: readonly HealthReading[];
  readonly expect: ScalingExpectation;
  /** Says which setting is missing and where it would have come from. */
  readonly unknown: (setting: string) => string;
  readonly low: SpanIndex;
  readonly normal: SpanIndex;
  readonly ctx: CheckContext;
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Why queue contents cannot be read as ours alone, or undefined when they can. */
function sharedQueue(ctx: CheckContext): string | undefined {
  if (ctx.run.shard !== undefined)
    return 'a shard sees only its own jobs, not what the other shards queued (judge the merged records)';
  if (!(ctx.run.exclusiveEndpoint ?? ctx.run.ownsEndpoint))
    return "the endpoint may be shared (no --exclusive-endpoint): other clients' jobs may be queued";
  return undefined;
}

function judgeAboveMax(j: Judging): void {
  const max = j.expect.workersMax;
  if (max === undefined) return j.ctx.unjudged('scaling.above-max', j.unknown('workersMax'));
  for (const s of j.samples) {
    const v = j.ctx.judge('scaling.above-max', workersOf(s) > max);
    if (v)
      j.ctx.emit(v, {
        record: s.record,
        message: `/health counted ${countsText(s)}: above workersMax ${String(max)}`,
      });
  }
}

/** Workers rose between two reads while the queue held only lowPriority jobs of ours. */
function judgeLowPriority(j: Judging): void {
  const id = 'scaling.low-priority';
  const min = j.expect.workersMin;
  if (min === undefined) return j.ctx.unjudged(id, j.unknown('workersMin'));
  const shared = sharedQueue(j.ctx);
  if (shared !== undefined) return j.ctx.unjudged(id, shared);
  const grace = j.ctx.tolerances.scaleUpGraceMs;
  let judgedOne = false;
  let noInit = false;
  for (let i = 1; i < j.samples.length; i++) {
    const a = j.samples[i - 1] as HealthReading;
    const b = j.samples[i] as HealthReading;
    if (a.record.endAt >= b.record.sentAt || a.inQueue === 0) continue;
    // No job of ours that calls for workers can have been queued then, and some lowPriority one was.
    if (j.normal.overlapping(a.record.sentAt - grace, b.record.endAt) > 0) continue;
    if (j.low.overlapping(a.record.sentAt, a.record.endAt) === 0) continue;
    if (a.initializing === undefined || b.initializing === undefined) {
      noInit = true;
      continue;
    }
    judgedOne = true;
    const before = Math.max(workersOf(a), min);
    const v = j.ctx.judge(id, workersOf(b) > before);
    if (v)
      j.ctx.emit(v, {
        record: b.record,
        message: `/health counted ${countsText(b)}, up from ${String(workersOf(a))} workers (workersMin ${String(min)}) at the read before, while every job in the queue was lowPriority`,
      });
  }
  if (!judgedOne)
    j.ctx.unjudged(
      id,
      noInit ? NO_INITIALIZING : 'no /health read saw a queue of only lowPriority jobs of ours',
    );
}

/**
 * Queued work beyond the workers idle or starting, below workersMax, for longer than the bound.
 * Every read is an observation (one with nothing waiting shows the endpoint not stuck then), so
 * whether the rule was exercised does not hang on when the reads fell.
 */
function judgeStuck(j: Judging): void {
  const id = 'scaling.stuck';
  const { workersMax: max, scaleUpWithinMs: within } = j.expect;
  if (max === undefined || within === undefined)
    return j.ctx.unjudged(id, j.unknown(max === undefined ? 'workersMax' : 'scaleUpWithin'));
  const shared = sharedQueue(j.ctx);
  if (shared !== undefined) return j.ctx.unjudged(id, shared);
  const bound = within + j.ctx.tolerances.scaleUpGraceMs;
  let since: HealthReading | undefined;
  let reported = false;
  for (const s of j.samples) {
    if (s.initializing === undefined) continue;
    // Queued jobs that call for workers: what the queue holds beyond our lowPriority ones.
    const calling = queuedCallingForWorkers(s.inQueue, j.low, s.record.sentAt, s.record.endAt);
    const waiting = calling > s.idle + s.initializing && workersOf(s) < max;
    if (!waiting) {
      since = undefined;
      reported = false;
    } else since ??= s;
    const waited = since === undefined ? 0 : s.record.sentAt - since.record.endAt;
    const v = j.ctx.judge(id, waiting && !reported && waited > bound);
    if (!v) continue;
    reported = true;
    j.ctx.emit(v, {
      record: s.record,
      message: `/health counted ${countsText(s)}: ${String(calling)} queued jobs call for workers beyond those idle or starting, below workersMax ${String(max)}, for ${secs(waited)} (scale-up bound ${secs(within)})`,
    });
  }
}

/**
 * Workers above workersMin idle, nothing queued or running, past idleTimeout plus grace. Every
 * quiet read is an observation (at workersMin it shows the rule kept), so whether the rule was
 * exercised does not hang on when the reads fell.
 */
function judgeNoScaleDown(j: Judging): void {
  const id = 'scaling.no-scale-down';
  const { workersMin: min, idleTimeoutMs: idle } = j.expect;
  if (min === undefined || idle === undefined)
    return j.ctx.unjudged(id, j.unknown(min === undefined ? 'workersMin' : 'idleTimeout'));
  const bound = idle + j.ctx.tolerances.scaleDownGraceMs;
  let since: HealthReading | undefined;
  let reported = false;
  let judgedOne = false;
  for (const s of j.samples) {
    const quiet =
      s.inQueue === 0 && s.running === 0 && (s.initializing ?? 0) === 0 && finishedOf(s) !== undefined;
    const above = quiet && workersOf(s) > min;
    // A job finished since the stretch began: some worker ran it, so its idle time starts anew.
    if (!above || (since === undefined ? undefined : finishedOf(since)) !== finishedOf(s)) {
      since = above ? s : undefined;
      reported = false;
    }
    if (!quiet) continue;
    judgedOne = true;
    const idleFor = since === undefined ? 0 : s.record.sentAt - since.record.endAt;
    const v = j.ctx.judge(id, !reported && idleFor > bound);
    if (!v) continue;
    reported = true;
    j.ctx.emit(v, {
      record: s.record,
      message: `/health counted ${countsText(s)}, nothing running, for ${secs(idleFor)}: above workersMin ${String(min)} past idleTimeout ${secs(idle)}`,
    });
  }
  if (!judgedOne) j.ctx.unjudged(id, 'no /health read saw the endpoint with nothing queued or running');
}

export const SCALING_IDS = [
  'scaling.low-priority',
  'scaling.above-max',
  'scaling.stuck',
  'scaling.no-scale-down',
] as const satisfies readonly CheckId[];

/**
 * `scaling.*`: the endpoint's workers against what the run expects of its scaling (the run
 * record's `scaling`, or the values a POST /v1/endpoints of the run sent), from the /health reads
 * and the jobs of ours that were queued. Judged at the end, when every job's time in the queue is
 * bounded by the records that followed it.
 */
export function scalingCheck(limits: Partial<Pick<RunLimits, 'scalingSamples' | 'queuedJobs'>> = {}): Check {
  // Enough for hours of one-a-second samples; a longer run is judged on its first ones.
  const maxSamples = limits.scalingSamples ?? DEFAULT_RUN_LIMITS.scalingSamples;
  let samplesLeftOut = 0;
  const samples: HealthReading[] = [];
  const spans = new QueueSpans({ maxJobs: limits.queuedJobs ?? DEFAULT_RUN_LIMITS.queuedJobs });
  let expected: ScalingExpected | undefined;
  return {
    name: 'scaling',
    ids: SCALING_IDS,
    add(r, ctx) {
      if (r.type !== 'exchange') return;
      expected ??= new ScalingExpected(ctx.run);
      expected.add(r);
      spans.add(r);
      const s = healthReadingOf(r);
      if (s === undefined) return;
      if (samples.length < maxSamples) samples.push(s);
      else samplesLeftOut++;
    },
    caps: () => [
      ...capCount('checks.scaling-samples', maxSamples, samplesLeftOut),
      // Spans counted coarsely stay upper bounds, at a tenth of a second: only jobs given up on lose detail.
      ...capCount('checks.queued', spans.dropped.limit, spans.dropped.givenUp),
    ],
    finish(ctx) {
      const e = expected ?? new ScalingExpected(ctx.run);
      if (samples.length === 0) {
        const why = ctx.routes.isMissing('health')
          ? 'the target does not serve /health'
          : 'no /health answer carried worker and queue counts';
        for (const id of SCALING_IDS) ctx.unjudged(id, why);
        return;
      }
      const j: Judging = {
        samples: samples.sort((a, b) => a.record.sentAt - b.record.sentAt),
        expect: e.value,
        unknown: (setting) =>
          `${setting} is not known: ${e.source} does not give it (state it under scaling:)`,
        low: spans.index(true),
        normal: spans.index(false),
        ctx,
      };
      judgeAboveMax(j);
      judgeNoScaleDown(j);
      // Without initializing, a worker that was already starting looks new, and coming capacity is unknown.
      if (samples.some((s) => s.initializing !== undefined)) {
        judgeLowPriority(j);
        judgeStuck(j);
      } else
        for (const id of ['scaling.low-priority', 'scaling.stuck'] as const)
          ctx.unjudged(id, NO_INITIALIZING);
    },
  };
}
