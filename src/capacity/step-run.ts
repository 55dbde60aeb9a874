import type { EpochClock } from '../core/clock.js';
import { starvedOfCpu, type CpuReading } from '../core/cpu-starvation.js';
import type { GeneratorRecord, JobstormRecord, RunRecord } from '../core/record.js';
import { resolutionOfMetric } from '../metrics/timing-resolution.js';
import { formatValue } from '../report/format.js';
import type { Summary } from '../report/summary.js';
import type { Threshold } from '../report/threshold.js';
import { unansweredReason } from '../report/verdict.js';
import type { GeneratorProbe } from '../runner/generator-watch.js';
import type { RunOutcome, Target } from '../runner/run-options.js';
import type { ExportSink } from '../session/session-options.js';
import { assembleRun, reachedAlready } from '../session/run-assembly.js';
import type { Scenario } from '../scenario/scenario.js';
import type { CapacityOptions, StepProgress } from './capacity-options.js';
import type { CapacityStep, HealthPoint } from './capacity-report.js';
import { timedReadingOf, type TimedReading } from './timed-reading.js';
import { littleCheck } from './little-law.js';
import { QueueWatch, queueTrend, type QueueTrend } from './queue-trend.js';
import type { SearchStage } from './search-mode.js';
import { stepScenario } from './step-scenario.js';
import { stepCost } from './step-cost.js';

export interface StepSettings {
  scenario: Scenario;
  target: Target;
  slo: readonly Threshold[];
  warmupMs: number;
  stepDurationMs: number;
  gracefulStopMs: number;
  queueGrowthTolerance: number;
  unboundedQueueSeconds: number;
  runId: string;
  /** Epoch ms the search started; step and sample times are reported relative to it. */
  originMs: number;
  /** The search's clock: each step runs on it. */
  clock: EpochClock;
  generatorProbe?: () => GeneratorProbe;
  interrupt?: AbortSignal;
  cpu?: () => CpuReading;
  /** Every record of the step too, as it comes (CapacityOptions.onRecord). */
  onRecord?: (record: JobstormRecord) => void;
  /** The search's live exports, started by its owner: each step feeds them every record. */
  exports?: ExportSink;
  /** The step's progress, about once a second (CapacityOptions.onProgress). */
  onProgress?: (progress: StepProgress) => void;
  /** CapacityOptions.onStepStart. */
  onStepStart?: CapacityOptions['onStepStart'];
}

export interface StepRun {
  step: CapacityStep;
  health: HealthPoint[];
  outcome: RunOutcome;
  interrupted: boolean;
}

/** Achieved throughput short of the offered rate by more than this share fails the step. */
const SHORTFALL = 0.1;
/** Unfinished jobs or dropped arrivals above this share of the step's jobs fail it. */
const LEFTOVER = 0.01;

/** What one step judges besides the session's metrics: every /health sample, the generator's stretches. */
class StepRecorder {
  readonly samples: TimedReading[] = [];
  /** Stretches where jobstorm itself was the bottleneck (run-relative, as every record). */
  readonly generator: GeneratorRecord[] = [];
  unboundedAt: number | undefined;
  /** Why the step was stopped before its jobs could finish, if it was. */
  stoppedBy: string | undefined;
  private judgedEnd = false;

  constructor(
    private readonly settings: StepSettings,
    private readonly rate: number,
    private readonly watch: QueueWatch,
    /** Stops the step's arrivals (and the wait for its jobs) through the runner's interrupt. */
    private readonly stop: (why: string) => void,
  ) {}

  add(r: JobstormRecord): void {
    if (r.type === 'generator') {
      this.generator.push(r);
      return;
    }
    if (r.type !== 'exchange') return;
    const sample = timedReadingOf(r);
    if (sample) this.addSample(sample);
  }

  private addSample(sample: TimedReading): void {
    this.samples.push(sample);
    if (this.unboundedAt === undefined && this.watch.add(sample)) {
      this.unboundedAt = sample.atMs;
      this.halt('unbounded queue');
    }
    const { warmupMs, stepDurationMs, queueGrowthTolerance } = this.settings;
    const end = warmupMs + stepDurationMs;
    if (this.judgedEnd || sample.atMs < end) return;
    this.judgedEnd = true;
    // A step whose queue was still growing when its arrivals ended has failed already; waiting for
    // its backlog to finish would only cost time (the next step waits for the drain anyway).
    const window = this.samples.filter((s) => s.atMs >= warmupMs && s.atMs <= end);
    if (!queueTrend(window, this.rate, queueGrowthTolerance).steady) this.halt('no steady state');
  }

  private halt(why: string): void {
    this.stoppedBy ??= why;
    this.stop(why);
  }
}

function achievedRate(
  samples: readonly TimedReading[],
  summary: Summary,
  measuredMs: number,
): { rate: number | null; from: CapacityStep['achievedFrom'] } {
  const counted = samples.filter((s) => s.completed !== undefined);
  const a = counted[0];
  const b = counted[counted.length - 1];
  if (a && b && b.atMs - a.atMs >= 1000) {
    const done = (s: TimedReading): number => (s.completed ?? 0) + (s.failed ?? 0);
    return { rate: round((done(b) - done(a)) / ((b.atMs - a.atMs) / 1000)), from: 'health' };
  }
  if (measuredMs <= 0) return { rate: null, from: null };
  const finished = Object.values(summary.jobs.byState).reduce((s, n) => s + n, 0);
  return { rate: round(finished / (measuredMs / 1000)), from: 'client' };
}

function round(v: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

function workerStats(samples: readonly TimedReading[]): CapacityStep['workers'] {
  if (!samples.length) return null;
  const running = samples.map((s) => s.running);
  return {
    min: Math.min(...running),
    max: Math.max(...running),
    mean: round(running.reduce((s, n) => s + n, 0) / running.length, 2),
  };
}

interface StepVerdict {
  rate: number;
  summary: Summary;
  trend: QueueTrend;
  achieved: number | null;
  measuredMs: number;
  unboundedDepth: number | undefined;
  interrupted: boolean;
  stoppedEarly: boolean;
  settings: StepSettings;
}

/** Every reason the step does not show a sustainable rate; none means it passed. */
function reasonsOf(v: StepVerdict): string[] {
  const reasons: string[] = [];
  const { summary: s, rate } = v;
  if (v.interrupted) reasons.push('interrupted before the step ended');
  if (v.unboundedDepth !== undefined) {
    reasons.push(
      `unbounded queue: it grew at every /health sample to ${String(v.unboundedDepth)} jobs (more than ${String(v.settings.unboundedQueueSeconds)} s of arrivals)`,
    );
  }
  for (const t of s.thresholds)
    if (!t.ok) reasons.push(`SLO ${t.expression} failed (value ${formatValue(t.value, t.unit, resolutionOfMetric(t.expression))})`);
  if (!v.trend.steady)
    reasons.push(
      `no steady state: the queue kept growing by ${String(v.trend.growthPerSec)} jobs/s (from ${String(v.trend.first)} to ${String(v.trend.last)})`,
    );
  if (s.jobs.submitted === 0) reasons.push('no job was accepted in the measured window');
  const seconds = v.measuredMs / 1000;
  // Against the jobs actually submitted, not the arrivals: flows that submit no job (a health
  // check) or rejected submissions (429s, for the SLO to judge) are not throughput the endpoint
  // owed. Two jobs of slack: at low rates the window's edges alone move the count by that much.
  const submittedRate = seconds > 0 ? s.jobs.submitted / seconds : 0;
  if (v.achieved !== null && seconds > 0 && v.achieved < submittedRate * (1 - SHORTFALL) - 2 / seconds) {
    reasons.push(
      `achieved ${String(v.achieved)} jobs/s, short of the ${String(round(submittedRate, 2))} jobs/s submitted`,
    );
  }
  if (!v.stoppedEarly && s.jobs.unfinished > Math.max(1, LEFTOVER * s.jobs.submitted)) {
    reasons.push(
      `${String(s.jobs.unfinished)} jobs still unfinished ${formatValue(v.settings.gracefulStopMs, 'ms')} after arrivals stopped`,
    );
  }
  if (s.dropped.total > Math.max(1, LEFTOVER * rate * seconds))
    reasons.push(`${String(s.dropped.total)} arrivals dropped at target.maxInFlight`);
  // A rate at which the target drops connections or times out is not sustainable, whatever its latency.
  const unanswered = unansweredReason(s);
  if (unanswered !== undefined) reasons.push(unanswered);
  return reasons;
}

interface Ran {
  index: number;
  rate: number;
  stage: SearchStage;
  outcome: RunOutcome;
  interrupted: boolean;
}

/** How long, within [from, to), jobstorm was the bottleneck; undefined when it never was. */
function generatorLimitIn(
  stretches: readonly GeneratorRecord[],
  from: number,
  to: number,
): CapacityStep['generatorLimited'] {
  let durationMs = 0;
  let starved = false;
  for (const g of stretches) {
    const overlap = Math.min(to, g.at + g.durationMs) - Math.max(from, g.at);
    if (overlap <= 0) continue;
    durationMs += overlap;
    starved ||= starvedOfCpu(g);
  }
  return durationMs > 0 ? { durationMs: Math.round(durationMs), starved } : undefined;
}

/** Where the step's measured window ends: its plan, cut short by an unbounded queue or an interrupt. */
function measuredEndOf(settings: StepSettings, recorder: StepRecorder, ran: Ran): number {
  const plannedEnd = settings.warmupMs + settings.stepDurationMs;
  return Math.min(
    plannedEnd,
    recorder.unboundedAt ?? plannedEnd,
    ran.interrupted ? ran.outcome.durationMs : plannedEnd,
  );
}

interface Judged {
  run: RunRecord;
  summary: Summary;
  measuredEnd: number;
}

/** Every reason the step failed, jobstorm's own bottleneck said first; and that bottleneck. */
function verdictOf(
  settings: StepSettings,
  recorder: StepRecorder,
  ran: Ran,
  j: Judged & { measuredMs: number; trend: QueueTrend; achieved: number | null },
): { reasons: string[]; limited: CapacityStep['generatorLimited']; stoppedEarly: boolean } {
  const stoppedEarly = recorder.stoppedBy !== undefined || ran.interrupted;
  const reasons = reasonsOf({
    rate: ran.rate,
    summary: j.summary,
    trend: j.trend,
    achieved: j.achieved,
    measuredMs: j.measuredMs,
    unboundedDepth:
      recorder.unboundedAt === undefined ? undefined : recorder.samples[recorder.samples.length - 1]?.inQueue,
    interrupted: ran.interrupted,
    stoppedEarly,
    settings,
  });
  const limited = generatorLimitIn(recorder.generator, settings.warmupMs, j.measuredEnd);
  // A failure while jobstorm was the bottleneck may be jobstorm's own: said first, where it is read.
  if (limited && reasons.length > 0) {
    reasons.unshift(
      `jobstorm itself was the bottleneck for ${(limited.durationMs / 1000).toFixed(1)} s of the measured window (${limited.starved ? 'starved of CPU' : 'its event loop saturated'}): this failure may be jobstorm's, not the target's`,
    );
  }
  return { reasons, limited, stoppedEarly };
}

/** The step's figures and verdict over its measured window, and its /health samples for the timeline. */
function judge(
  settings: StepSettings,
  recorder: StepRecorder,
  ran: Ran,
  j: Judged,
): { step: CapacityStep; health: HealthPoint[] } {
  const { index, rate, stage, outcome } = ran;
  const { run, summary, measuredEnd } = j;
  const measuredMs = Math.max(0, measuredEnd - settings.warmupMs);
  const window = recorder.samples.filter((s) => s.atMs >= settings.warmupMs && s.atMs <= measuredEnd);
  const trend = queueTrend(window, rate, settings.queueGrowthTolerance);
  const achieved = achievedRate(window, summary, measuredMs);
  const { reasons, limited, stoppedEarly } = verdictOf(settings, recorder, ran, {
    ...j,
    measuredMs,
    trend,
    achieved: achieved.rate,
  });
  const requests = Object.values(summary.operations).reduce((n, o) => n + o.requests, 0);
  const count429 = Object.values(summary.operations).reduce((n, o) => n + o.count429, 0);
  const startMs = run.startedAtMs - settings.originMs;
  const step: CapacityStep = {
    index,
    stage,
    offeredRate: rate,
    submittedRate: measuredMs > 0 ? round(summary.jobs.submitted / (measuredMs / 1000)) : null,
    achievedRate: achieved.rate,
    achievedFrom: achieved.from,
    passed: reasons.length === 0,
    reasons,
    stoppedEarly,
    startMs,
    measuredMs: round(measuredMs, 1),
    arrivals: outcome.counters.arrivals,
    dropped: summary.dropped.total,
    submitted: summary.jobs.submitted,
    finished: Object.values(summary.jobs.byState).reduce((n, x) => n + x, 0),
    unfinished: summary.jobs.unfinished,
    requests,
    count429,
    rate429: requests > 0 ? round(count429 / requests, 6) : null,
    cost: stepCost(summary, settings.warmupMs, measuredEnd),
    e2e: summary.jobs.e2eAll,
    delayTime: summary.jobs.delayTime.percentiles,
    executionTime: summary.jobs.executionTime.percentiles,
    queue: trend,
    workers: workerStats(window),
    little: littleCheck(window, achieved.rate, summary),
    thresholds: summary.thresholds,
    ...(limited ? { generatorLimited: limited } : {}),
  };
  return { step, health: healthOf(recorder.samples, startMs, index) };
}

function healthOf(samples: readonly TimedReading[], startMs: number, index: number): HealthPoint[] {
  return samples.map((s) => ({
    atMs: round(startMs + s.atMs, 1),
    step: index,
    running: s.running,
    idle: s.idle,
    inQueue: s.inQueue,
    inProgress: s.inProgress,
  }));
}

/**
 * Runs one step: the flows at a constant `rate` for warm-up + duration, then judges the measured
 * window (after the warm-up) against the SLO, the queue's steadiness and the achieved throughput.
 * A queue growing without bound stops the step early through the runner's interrupt. The step is
 * a run session of its own (no checks; the search's live exports, which outlive it, see it all).
 */
export async function runRateStep(
  settings: StepSettings,
  index: number,
  rate: number,
  stage: SearchStage,
): Promise<StepRun> {
  const plannedEnd = settings.warmupMs + settings.stepDurationMs;
  const stop = new AbortController();
  const onOuter = (): void => stop.abort(new Error('interrupted'));
  settings.interrupt?.addEventListener('abort', onOuter, { once: true });
  if (settings.interrupt?.aborted) onOuter();
  const recorder = new StepRecorder(
    settings,
    rate,
    new QueueWatch(rate, settings.unboundedQueueSeconds),
    (why) => stop.abort(new Error(why)),
  );
  // The search reached the target once for all its steps and closes it after the last one.
  const { session, run: runSession } = await assembleRun({
    reach: () => Promise.resolve(reachedAlready(settings.target)),
    session: () => ({
      scenario: stepScenario(settings.scenario, rate, plannedEnd, settings.warmupMs),
      runId: `${settings.runId}-step${String(index)}`,
      clock: settings.clock,
      thresholds: settings.slo,
      checks: false,
      ...(settings.exports ? { exports: { sink: settings.exports, stopAtFinish: false } } : {}),
      sinks: {
        record: (r) => {
          recorder.add(r);
          settings.onRecord?.(r);
        },
        ...(settings.onProgress
          ? { progress: (snapshot, view) => settings.onProgress?.({ index, rate, stage, snapshot, view }) }
          : {}),
      },
      interrupt: stop.signal,
      gracefulStopMs: settings.gracefulStopMs,
      drainMs: 1000,
      ...(settings.cpu ? { cpu: settings.cpu } : {}),
      ...(settings.generatorProbe ? { generatorProbe: settings.generatorProbe } : {}),
    }),
  });
  settings.onStepStart?.({ index, rate, stage }, session);
  let outcome: RunOutcome;
  try {
    outcome = await runSession();
  } finally {
    settings.interrupt?.removeEventListener('abort', onOuter);
  }
  const interrupted = settings.interrupt?.aborted ?? false;
  const ran: Ran = { index, rate, stage, outcome, interrupted };
  const run = session.runRecord;
  if (!run) throw new Error('the runner emitted no run record');
  const measuredEnd = measuredEndOf(settings, recorder, ran);
  // The window's summary: up to the window's end, of which the metrics leave the warm-up out (as
  // in a run); how the step ended is the step's own verdict, not the summary's.
  const summary = await session.finish({ durationMs: measuredEnd, end: 'completed' });
  const { step, health } = judge(settings, recorder, ran, { run, summary, measuredEnd });
  return { step, health, outcome, interrupted };
}
