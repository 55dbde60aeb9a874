import type {
  DroppedRecord,
  ExchangeRecord,
  GeneratorRecord,
  JobstormRecord,
  StallRecord,
  WebhookRecord,
} from '../core/record.js';
import { PREFLIGHT_FLOW } from '../core/record.js';
import type { Violation } from '../core/violation.js';
import { increment, mergeCounts, sortedCounts, type Counts } from './counts.js';
import { LatencyHistogram } from './histogram.js';
import type { JobEvents } from '../fold/job-events.js';
import { JobTracker } from './job-tracker.js';
import {
  METRICS_DATA_VERSION,
  type GeneratorLimitData,
  type JobsData,
  type MetricsData,
  type StallData,
  type WarmupData,
} from './metrics-data.js';
import { OperationStats } from './operation-stats.js';
import type { CapCount } from '../core/run-limits.js';
import type { WorkerPrice } from './scaling-data.js';
import { ScalingTrack, type ScalingLimits } from './scaling-track.js';
import { SecondSeries, type SecondSource } from './second-series.js';
import { TokenStats, type TokenSettings } from './llm-stats.js';
import { outputTimeline } from './token-timing.js';
import { ViolationTally } from './violation-tally.js';

/** The counting part of `JobsData`, without the histograms. */
export type JobCounts = Pick<
  JobsData,
  'submitted' | 'retried' | 'lost' | 'unfinished' | 'untracked' | 'byState'
>;

/** What a live progress line reads of the metrics, about once a second. */
export interface LiveFigures {
  /** p99 latency from the intended start, every operation and outcome so far; undefined before any answer. */
  p99Ms: number | undefined;
  /** Requests answered 5xx or not answered at all, so far. */
  failed: number;
}

export interface RunMetricsOptions {
  /**
   * Wall-clock anchor (epoch ms) of the records' monotonic time 0, when no `run` record will be
   * added first.
   */
  startedAtMs?: number;
  /**
   * The scenario's warm-up: exchanges and drops intended before it go to the per-second series
   * only (the timeline stays whole); every other metric, and so every threshold, is of the rest.
   * Jobs submitted in it are not counted, so their later polls add no job timings.
   */
  warmupMs?: number;
  /** The scenario's price of a worker-second (`scaling.pricePerWorkerSecond`), for the cost figures. */
  price?: WorkerPrice;
  /** How token timings are computed and which objectives make an answer good (the scenario's `llm`). */
  llm?: TokenSettings;
  /** What the scaling figures keep at most (default RunLimits' values). */
  limits?: Partial<ScalingLimits>;
}

/**
 * Every metric of a run, fed one record at a time. `add` and `merge` are order-independent (sums,
 * maxima, histograms, earliest-N examples), so shard results merged in any order equal the result
 * of one process seeing every record. Memory is constant in run length apart from the per-second
 * series and the jobs currently in flight.
 */
export class RunMetrics {
  private anchorMs: number | undefined;
  private wallStartMs: number | null = null;
  private wallEndMs: number | null = null;
  private readonly operations = new Map<string, OperationStats>();
  private readonly errors: Counts = {};
  private stalls: StallData[] = [];
  private generatorLimited: GeneratorLimitData[] = [];
  private droppedTotal = 0;
  private readonly droppedByFlow: Counts = {};
  private webhooksReceived = 0;
  private readonly webhooksByAnswer: Counts = {};
  private readonly violations = new ViolationTally();
  private readonly series = new SecondSeries();
  private readonly jobs = new JobTracker();
  private tokens: TokenStats;
  private warmup: WarmupData | undefined;
  private readonly scaling: ScalingTrack;

  constructor(options: RunMetricsOptions = {}) {
    this.scaling = new ScalingTrack(options.price, options.limits);
    this.tokens = new TokenStats(options.llm);
    if (options.warmupMs !== undefined && options.warmupMs > 0)
      this.warmup = { ms: options.warmupMs, requests: 0, dropped: 0 };
    if (options.startedAtMs !== undefined) this.setAnchor(options.startedAtMs);
  }

  /**
   * `jobs`: what the caller's JobFold made of this record (the one fold of the run, which has this
   * metrics' warm-up); the metrics fold nothing themselves. Jobs followed at once, and so
   * `untracked`, are that fold's cap.
   */
  add(record: JobstormRecord, jobs: JobEvents): void {
    switch (record.type) {
      case 'run':
        this.setAnchor(record.startedAtMs);
        return;
      case 'exchange':
        this.addExchange(record, this.checked(jobs));
        return;
      case 'webhook':
        this.addWebhook(record);
        return;
      case 'dropped':
        this.addDropped(record);
        return;
      case 'stall':
        this.addStall(record);
        return;
      case 'generator':
        this.addGeneratorLimit(record);
        return;
    }
  }

  /**
   * The job counts so far, by the summary's own definition (a job counts in the first final state
   * seen in an accepted answer): what a live progress line shows, so it agrees with the reports.
   * Cheap enough to call every second: no histogram is encoded.
   */
  jobCounts(): JobCounts {
    const j = this.jobs;
    return {
      submitted: j.submitted,
      retried: j.retried,
      lost: j.lost,
      unfinished: j.unfinished,
      untracked: j.untracked,
      byState: { ...j.byState },
    };
  }

  /**
   * The p99 and failures so far, of the measured window as the summary counts them. It merges every
   * operation's histograms, so it is for a progress line once a second, never per record.
   */
  liveFigures(): LiveFigures {
    const all = LatencyHistogram.create();
    let failed = 0;
    for (const stats of this.operations.values()) {
      for (const [outcome, o] of stats.outcomes) {
        all.merge(o.intended);
        if (outcome === '5xx' || outcome === 'error') failed += o.intended.count;
      }
    }
    return { p99Ms: all.count > 0 ? all.percentileMs(99) : undefined, failed };
  }

  /** The per-second series as windowed thresholds read it, live while records come in. */
  secondSource(): SecondSource {
    return this.series;
  }

  /** Violations come from the checks, not from records, so they arrive through their own door. */
  addViolation(violation: Violation): void {
    this.violations.add(violation, this.anchorMs ?? 0);
  }

  merge(other: RunMetrics): this {
    this.wallStartMs = minOf(this.wallStartMs, other.wallStartMs);
    this.wallEndMs = maxOf(this.wallEndMs, other.wallEndMs);
    for (const [op, stats] of other.operations) this.operation(op).merge(stats);
    mergeCounts(this.errors, other.errors);
    this.droppedTotal += other.droppedTotal;
    mergeCounts(this.droppedByFlow, other.droppedByFlow);
    this.webhooksReceived += other.webhooksReceived;
    mergeCounts(this.webhooksByAnswer, other.webhooksByAnswer);
    this.violations.merge(other.violations);
    this.series.merge(other.series);
    this.jobs.merge(other.jobs);
    // An empty aggregate (a merge's start) takes the settings of the first one with answers.
    if (this.tokens.judged === 0 && other.tokens.judged > 0)
      this.tokens = new TokenStats(other.tokens.settings);
    this.tokens.merge(other.tokens);
    this.stalls = sortedStalls([...this.stalls, ...other.stalls]);
    this.generatorLimited = byStart([...this.generatorLimited, ...other.generatorLimited]);
    this.warmup = mergeWarmup(this.warmup, other.warmup);
    this.scaling.merge(other.scaling);
    return this;
  }

  /** The caps of this run's records that left detail out of the metrics (the scaling figures'). */
  caps(): CapCount[] {
    return this.scaling.caps();
  }

  toJSON(): MetricsData {
    const operations: MetricsData['operations'] = {};
    for (const op of [...this.operations.keys()].sort()) {
      const stats = this.operations.get(op);
      if (stats) operations[op] = stats.toJSON();
    }
    return {
      version: METRICS_DATA_VERSION,
      wallStartMs: this.wallStartMs,
      wallEndMs: this.wallEndMs,
      operations,
      jobs: this.jobs.toJSON(),
      errors: sortedCounts(this.errors),
      dropped: { total: this.droppedTotal, byFlow: sortedCounts(this.droppedByFlow) },
      webhooks: { received: this.webhooksReceived, byAnswer: sortedCounts(this.webhooksByAnswer) },
      violations: this.violations.toJSON(),
      series: this.series.toJSON(),
      ...(this.tokens.judged > 0 ? { tokens: this.tokens.toJSON() } : {}),
      ...(this.stalls.length > 0 ? { stalls: this.stalls.map((x) => ({ ...x })) } : {}),
      ...(this.generatorLimited.length > 0
        ? { generatorLimited: this.generatorLimited.map((x) => ({ ...x })) }
        : {}),
      ...(this.warmup ? { warmup: { ...this.warmup } } : {}),
      ...scalingOf(this.scaling),
    };
  }

  static fromJSON(data: MetricsData): RunMetrics {
    const m = new RunMetrics();
    m.wallStartMs = data.wallStartMs;
    m.wallEndMs = data.wallEndMs;
    if (data.wallStartMs !== null) m.anchorMs = data.wallStartMs;
    for (const [op, d] of Object.entries(data.operations)) m.operations.set(op, OperationStats.fromJSON(d));
    mergeCounts(m.errors, data.errors);
    m.droppedTotal = data.dropped.total;
    mergeCounts(m.droppedByFlow, data.dropped.byFlow);
    m.webhooksReceived = data.webhooks.received;
    mergeCounts(m.webhooksByAnswer, data.webhooks.byAnswer);
    m.violations.merge(ViolationTally.fromJSON(data.violations));
    m.series.merge(SecondSeries.fromJSON(data.series));
    m.jobs.merge(JobTracker.fromJSON(data.jobs));
    if (data.tokens) m.tokens = TokenStats.fromJSON(data.tokens);
    m.stalls = sortedStalls(data.stalls ?? []);
    m.generatorLimited = byStart((data.generatorLimited ?? []).map((x) => ({ ...x })));
    if (data.warmup) m.warmup = { ...data.warmup };
    if (data.scaling) m.scaling.merge(ScalingTrack.fromJSON(data.scaling));
    return m;
  }

  private setAnchor(startedAtMs: number): void {
    // Several run records (shards fed to one aggregate) are fine: each anchors the records after it.
    this.anchorMs = startedAtMs;
    this.wallStartMs = minOf(this.wallStartMs, startedAtMs);
    this.wallEndMs = maxOf(this.wallEndMs, startedAtMs);
  }

  private anchor(): number {
    if (this.anchorMs === undefined) {
      throw new Error('RunMetrics: add the run record (or pass startedAtMs) before other records');
    }
    return this.anchorMs;
  }

  private checked(jobs: JobEvents): JobEvents {
    const warmupMs = this.warmup?.ms ?? 0;
    if (jobs.warmupMs !== warmupMs)
      throw new Error(
        `RunMetrics: the job fold's warm-up (${jobs.warmupMs} ms) is not the metrics' (${warmupMs} ms)`,
      );
    return jobs;
  }

  private addExchange(r: ExchangeRecord, jobs: JobEvents): void {
    const anchor = this.anchor();
    // Job events go by the job, not the record: a job opened in the warm-up is `warm` throughout.
    this.jobs.add(jobs);
    // Scaling covers the whole run, warm-up included: the workers cost money all the same.
    this.scaling.add(anchor, r, jobs);
    if (!jobs.warm) {
      if (jobs.opened === 'submit') this.series.addSubmitted(anchor + r.endAt);
      if (jobs.final) this.series.addFinal(anchor + r.endAt, jobs.final);
    }
    // The preflight comes before time 0 (and, in a shard, before its wait at the barrier): no
    // second of the run. The series, its windows and rates count from the common start, as every
    // shard's do (issue 47); the preflight still counts in the totals.
    const inRun = r.flow !== PREFLIGHT_FLOW;
    if (this.warmup && r.intendedAt < this.warmup.ms) {
      this.warmup.requests++;
      if (inRun) this.series.addExchange(anchor, r);
      this.seen(anchor + r.endAt);
      return;
    }
    this.operation(r.op).add(r);
    this.addStreamed(r, jobs);
    if (r.error) increment(this.errors, r.error.kind);
    if (inRun) this.series.addExchange(anchor, r);
    this.seen(anchor + r.endAt);
  }

  /**
   * A streamed answer, once whole: an `/openai/*` stream (its own record) or a job read through
   * `/stream` (when the fold closes it, every read's output gathered).
   */
  private addStreamed(r: ExchangeRecord, jobs: JobEvents): void {
    if (r.op === 'openai' && r.req?.stream === true) {
      const ok =
        r.status !== undefined && r.status < 300 && r.error === undefined && r.sse?.errorEvent !== true;
      const output = r.output && outputTimeline(r.sentAt, [r.output], r.endAt);
      this.tokens.add({ path: 'openai', output, ok });
      return;
    }
    const streamed = jobs.output;
    if (streamed === undefined || jobs.final === undefined || jobs.warm) return;
    const coldMs = this.scaling.coldMsOfWait(this.anchor(), r, jobs);
    this.tokens.add({
      path: 'stream',
      output: outputTimeline(streamed.openedAt, streamed.parts),
      ok: jobs.final === 'COMPLETED',
      queueMs: jobs.delayMs,
      ...(coldMs === undefined ? {} : { coldMs }),
    });
  }

  private addWebhook(r: WebhookRecord): void {
    const anchor = this.anchor();
    this.webhooksReceived++;
    increment(this.webhooksByAnswer, String(r.answered));
    this.seen(anchor + r.at);
  }

  private addDropped(r: DroppedRecord): void {
    const anchor = this.anchor();
    if (this.warmup && r.intendedAt < this.warmup.ms) {
      this.warmup.dropped++;
      this.series.addDropped(anchor + r.intendedAt);
      this.seen(anchor + r.intendedAt);
      return;
    }
    this.droppedTotal++;
    increment(this.droppedByFlow, r.flow);
    this.series.addDropped(anchor + r.intendedAt);
    this.seen(anchor + r.intendedAt);
  }

  private addStall(r: StallRecord): void {
    const anchor = this.anchor();
    this.stalls = sortedStalls([
      ...this.stalls,
      {
        atMs: anchor + r.at,
        durationMs: r.durationMs,
        inFlight: r.inFlight,
        ...(r.failed ? { failed: { ...r.failed } } : {}),
      },
    ]);
    this.seen(anchor + r.at + r.durationMs);
  }

  private addGeneratorLimit(r: GeneratorRecord): void {
    const anchor = this.anchor();
    this.generatorLimited = byStart([
      ...this.generatorLimited,
      {
        atMs: anchor + r.at,
        durationMs: r.durationMs,
        busy: r.busy,
        loopDelayP99Ms: r.loopDelayP99Ms,
        latenessP99Ms: r.latenessP99Ms,
        // Absent, not undefined, when not measured: the stretch says so by leaving it out.
        ...(r.cpuShare === undefined ? {} : { cpuShare: r.cpuShare }),
      },
    ]);
    this.seen(anchor + r.at + r.durationMs);
  }

  private seen(wallMs: number): void {
    this.wallEndMs = maxOf(this.wallEndMs, wallMs);
  }

  private operation(op: string): OperationStats {
    let stats = this.operations.get(op);
    if (!stats) {
      stats = new OperationStats();
      this.operations.set(op, stats);
    }
    return stats;
  }
}

function scalingOf(track: ScalingTrack): Pick<MetricsData, 'scaling'> {
  const scaling = track.toJSON();
  return scaling ? { scaling } : {};
}

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}

/**
 * Time order whatever order shards were merged in, overlapping stalls made one: shards that stall
 * together saw one stall of their common target, not one each (their requests in flight add up).
 * A union of intervals, so any merge order gives the same list; a run has a handful at most.
 */
function sortedStalls(stalls: StallData[]): StallData[] {
  const out: StallData[] = [];
  // Stalls starting at one instant are joined whichever comes first: no tie-break needed.
  for (const x of [...stalls].sort((a, b) => a.atMs - b.atMs)) {
    const last = out.at(-1);
    if (last !== undefined && x.atMs <= last.atMs + last.durationMs) {
      last.durationMs = Math.max(last.durationMs, x.atMs + x.durationMs - last.atMs);
      last.inFlight += x.inFlight;
      if (x.failed) {
        const failed = { ...last.failed };
        mergeCounts(failed, x.failed);
        last.failed = sortedCounts(failed);
      }
    } else out.push({ ...x, ...(x.failed ? { failed: sortedCounts(x.failed) } : {}) });
  }
  return out;
}

/** Shards of one run share its warm-up; runs merged with different ones keep the longest. */
function mergeWarmup(a: WarmupData | undefined, b: WarmupData | undefined): WarmupData | undefined {
  if (!a || !b) return a ?? (b ? { ...b } : undefined);
  return { ms: Math.max(a.ms, b.ms), requests: a.requests + b.requests, dropped: a.dropped + b.dropped };
}

/** Time order whatever order shards were merged in (each shard reports its own stretches). */
function byStart(list: GeneratorLimitData[]): GeneratorLimitData[] {
  return list.sort((a, b) => a.atMs - b.atMs || b.durationMs - a.durationMs);
}
