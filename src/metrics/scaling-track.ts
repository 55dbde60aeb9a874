import { healthReadingOf } from '../core/health-reading.js';
import type { ExchangeRecord } from '../core/record.js';
import { capCount, DEFAULT_RUN_LIMITS, type CapCount, type RunLimits } from '../core/run-limits.js';
import type { JobEvents } from '../fold/job-events.js';
import { QueueSpans } from '../fold/queue-spans.js';
import type { ScalingData, WorkerPrice, WorkerSample } from './scaling-data.js';
import { compareSamples, samplesFromColumns, samplesToColumns, workerSampleOf } from './worker-sample.js';
import { extendInitSpan, initializingWithin, type InitSpan } from './initializing-time.js';

/** A job that waited longer than this spreads its wait over this many seconds at most. */
const MAX_DELAY_SECONDS = 3600;

/** What a ScalingTrack keeps at most (RunLimits). */
export type ScalingLimits = Pick<RunLimits, 'scalingSamples' | 'queuedJobs'>;

/**
 * What the scaling figures need of a run, fed record by record: the `/health` samples, the
 * measured jobs' waits per wall-clock second, and the last arrival. `merge` is exact and
 * order-independent (samples are a sorted union, waits add, the last arrival is a maximum), so the
 * figures of merged shards equal those of one process seeing every record.
 *
 * What it keeps of one run's records is capped (`caps` says what the caps left out): the first
 * `scalingSamples` samples (hours of one a second; a /health step in every iteration would
 * otherwise keep one per request), and the queue spans of lowPriority jobs (QueueSpans).
 */
export class ScalingTrack {
  private asked = 0;
  private samples: WorkerSample[] = [];
  private sorted = true;
  private readonly delay = new Map<number, number>();
  private lastArrivalMs: number | null = null;
  /** Our jobs' time in the queue, by priority, on the clock of `anchorMs` (one per run). */
  private readonly spans: QueueSpans;
  private anchorMs: number | undefined;
  /** lowPriority spans of merged shards and read-back summaries, wall clock. */
  private readonly lowMerged: [number, number | null][] = [];
  private readonly maxSamples: number;
  /** Samples of this run's records left out for the cap. */
  private samplesLeftOut = 0;
  /** The samples' initializing time up to each, derived on demand (emptied when they are sorted). */
  private initBefore: number[] = [];
  /** A sample without `workers.initializing` was seen: no job's cold start can be told. */
  private initUnknown = false;

  constructor(
    private price?: WorkerPrice,
    limits: Partial<ScalingLimits> = {},
  ) {
    this.maxSamples = limits.scalingSamples ?? DEFAULT_RUN_LIMITS.scalingSamples;
    this.spans = new QueueSpans({
      lowOnly: true,
      maxJobs: limits.queuedJobs ?? DEFAULT_RUN_LIMITS.queuedJobs,
    });
  }

  /** The caps that left detail out of the figures (none reached: empty). */
  caps(): CapCount[] {
    const spans = this.spans.dropped;
    return [
      ...capCount('scaling.samples', this.maxSamples, this.samplesLeftOut),
      ...capCount('scaling.low-priority', spans.limit, spans.coarsened + spans.givenUp),
    ];
  }

  /** Health samples, submissions and finished jobs; everything else passes by. */
  add(anchorMs: number, r: ExchangeRecord, jobs: JobEvents): void {
    if (r.op === 'health') this.addHealth(anchorMs, r);
    else {
      this.anchorMs ??= anchorMs;
      this.spans.add(r);
    }
    if (jobs.opened === 'submit')
      this.lastArrivalMs = Math.max(this.lastArrivalMs ?? -Infinity, anchorMs + r.endAt);
    if (jobs.final !== undefined && !jobs.warm && jobs.delayMs !== undefined && jobs.delayMs > 0)
      this.addDelay(waitStart(anchorMs, r, jobs), jobs.delayMs);
  }

  /**
   * How much of a finished job's queue wait (its `delayTime`, from its submission's send) passed
   * while workers were initializing, by the samples in hand (initializing-time.ts): the job's own
   * cold start. Undefined when the job gave no wait, or no sample (or one without
   * `workers.initializing`) can tell.
   */
  coldMsOfWait(anchorMs: number, r: ExchangeRecord, jobs: JobEvents): number | undefined {
    const delay = jobs.delayMs;
    if (delay === undefined || this.initUnknown || this.samples.length === 0) return undefined;
    if (delay <= 0) return 0;
    const from = waitStart(anchorMs, r, jobs);
    return initializingWithin(this.initSpan(), from, from + delay);
  }

  private initSpan(): InitSpan {
    this.sortSamples();
    const span = { samples: this.samples, initBefore: this.initBefore };
    extendInitSpan(span);
    return span;
  }

  /** Samples in time order; what was derived from their old order is dropped. */
  private sortSamples(): void {
    if (this.sorted) return;
    this.samples.sort(compareSamples);
    this.sorted = true;
    this.initBefore = [];
  }

  merge(other: ScalingTrack): this {
    this.asked += other.asked;
    this.samples.push(...other.samples);
    this.sorted = false;
    this.initUnknown ||= other.initUnknown;
    for (const [sec, ms] of other.delay) this.delay.set(sec, (this.delay.get(sec) ?? 0) + ms);
    if (other.lastArrivalMs !== null)
      this.lastArrivalMs = Math.max(this.lastArrivalMs ?? -Infinity, other.lastArrivalMs);
    this.price ??= other.price;
    this.lowMerged.push(...other.lowSpans());
    return this;
  }

  /**
   * Undefined when there is nothing at all; a shard that asked no `/health` still carries its
   * jobs' waits and arrivals, which the merge with the shard that sampled needs.
   */
  toJSON(): ScalingData | undefined {
    if (this.asked === 0 && this.delay.size === 0 && this.lastArrivalMs === null) return undefined;
    this.sortSamples();
    const low = this.lowSpans();
    return {
      asked: this.asked,
      samples: samplesToColumns(this.samples),
      delayUs: [...this.delay.entries()].sort((a, b) => a[0] - b[0]),
      lastArrivalMs: this.lastArrivalMs,
      ...(low.length ? { lowPriorityQueued: low } : {}),
      ...(this.price ? { pricePerWorkerSecond: this.price.pricePerWorkerSecond } : {}),
      ...(this.price?.currency === undefined ? {} : { currency: this.price.currency }),
    };
  }

  static fromJSON(data: ScalingData): ScalingTrack {
    const price =
      data.pricePerWorkerSecond === undefined
        ? undefined
        : {
            pricePerWorkerSecond: data.pricePerWorkerSecond,
            ...(data.currency === undefined ? {} : { currency: data.currency }),
          };
    const t = new ScalingTrack(price);
    t.asked = data.asked;
    t.samples = samplesFromColumns(data.samples);
    t.initUnknown = t.samples.some((x) => x.initializing === undefined);
    for (const [sec, ms] of data.delayUs) t.delay.set(sec, (t.delay.get(sec) ?? 0) + ms);
    t.lastArrivalMs = data.lastArrivalMs;
    t.lowMerged.push(...(data.lowPriorityQueued ?? []));
    return t;
  }

  /** Every lowPriority span, wall clock, in one order whatever the order of merging. */
  private lowSpans(): [number, number | null][] {
    const own = this.anchorMs === undefined ? [] : this.spans.lowSpans(this.anchorMs);
    return [...this.lowMerged, ...own].sort((a, b) => a[0] - b[0] || (a[1] ?? Infinity) - (b[1] ?? Infinity));
  }

  private addHealth(anchorMs: number, r: ExchangeRecord): void {
    this.asked++;
    const reading = healthReadingOf(r);
    if (!reading) return;
    if (this.samples.length >= this.maxSamples) {
      this.samplesLeftOut++;
      return;
    }
    const sample = workerSampleOf(reading, anchorMs + r.endAt);
    const last = this.samples.at(-1);
    if (last && compareSamples(last, sample) > 0) this.sorted = false;
    this.samples.push(sample);
    if (sample.initializing === undefined) this.initUnknown = true;
  }

  /** The wait from `fromMs` (wall clock), split over the seconds it spans, in whole µs so sums are exact. */
  private addDelay(fromMs: number, delayMs: number): void {
    const toMs = fromMs + delayMs;
    const first = Math.floor(fromMs / 1000);
    const last = Math.min(Math.floor(toMs / 1000), first + MAX_DELAY_SECONDS);
    for (let sec = first; sec <= last; sec++) {
      const overlap = Math.min(toMs, (sec + 1) * 1000) - Math.max(fromMs, sec * 1000);
      if (overlap > 0) this.delay.set(sec, (this.delay.get(sec) ?? 0) + Math.round(overlap * 1000));
    }
  }
}

/** When a finished job's queue wait began: its submission's send, wall clock (epoch ms). */
function waitStart(anchorMs: number, r: ExchangeRecord, jobs: JobEvents): number {
  return anchorMs + r.endAt - jobs.sinceOpenMs;
}
