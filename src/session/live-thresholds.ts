import type { SecondSource } from '../metrics/second-series.js';
import type { RunAbort } from '../report/summary.js';
import { compare, type Threshold } from '../report/threshold.js';
import type { ThresholdUnit } from '../report/threshold-unit.js';
import { secondReader, type SecondReader } from '../report/threshold-readers.js';
import { ThresholdTally } from '../report/threshold-tally.js';
import { sampleAt, windowFrame, type WindowFrame } from '../report/threshold-windows.js';

/** One threshold as judged so far, for live exports and the progress line. */
export interface LiveThresholdStatus {
  expression: string;
  /** The verdict so far: false once any window failed (windowed), or while the run so far fails it. */
  ok: boolean;
  /** The latest value: of the last full window, or of the run so far; null before there is one. */
  value: number | null;
  unit: ThresholdUnit;
}

/** What stopped the run, as the warning and the summary say it. */
export interface LiveAbort extends RunAbort {
  value: number;
  unit: ThresholdUnit;
}

class LiveThreshold {
  private readonly tally = new ThresholdTally();
  value: number | null = null;
  failedOnce = false;

  constructor(
    readonly t: Threshold,
    private readonly reader: SecondReader,
  ) {}

  get ok(): boolean {
    if (this.t.windowS !== undefined) return !this.failedOnce;
    return this.value === null || compare(this.value, this.t.comparator, this.t.target);
  }

  /**
   * Takes a complete second; true when it completed a judgement that failed. A windowed one is
   * judged once its window is full, a whole-run one on the run so far.
   */
  take(source: SecondSource, sec: number): boolean {
    this.tally.push(sampleAt(source, this.reader, sec));
    const w = this.t.windowS;
    if (w !== undefined && this.tally.seconds > w) this.tally.shift();
    if (w !== undefined && this.tally.seconds < w) return false;
    const value = this.tally.value(this.t.aggregation);
    if (value === null) return false;
    this.value = value;
    const failed = !compare(value, this.t.comparator, this.t.target);
    if (failed) this.failedOnce = true;
    return failed;
  }
}

/**
 * The thresholds the per-second series can judge, judged while the run goes: each complete second
 * (one a record of a later second has been seen after) is taken once, by every such threshold.
 * One whose abortOnFail is set, failing after its delayAbortEval, stops the run through `onAbort`,
 * once. Thresholds the series cannot judge (job timings, violations) wait for the end.
 */
export class LiveThresholds {
  private readonly live: LiveThreshold[] = [];
  private frame: WindowFrame | undefined;
  private startMs = 0;
  private next: number | undefined;
  private stopped: LiveAbort | undefined;

  constructor(
    thresholds: readonly Threshold[],
    private readonly onAbort: (abort: LiveAbort) => void,
  ) {
    for (const t of thresholds) {
      const reader = secondReader(t);
      if (typeof reader !== 'string') this.live.push(new LiveThreshold(t, reader));
    }
  }

  /** Thresholds judged live at all. */
  get size(): number {
    return this.live.length;
  }

  /** The abort, once one happened. */
  get aborted(): LiveAbort | undefined {
    return this.stopped;
  }

  /** The run's start (its first run record) and warm-up set the frame: seconds before it are not judged. */
  start(startMs: number, warmupMs = 0): void {
    if (this.frame) return;
    this.startMs = startMs;
    this.frame = windowFrame(startMs, warmupMs);
    this.next = this.frame.firstSec;
  }

  /** A record ended in `sec`: every second before it is complete and judged now; true when any was. */
  seen(source: SecondSource, sec: number): boolean {
    if (this.next === undefined || sec <= this.next) return false;
    for (; this.next < sec; this.next++) this.take(source, this.next);
    return true;
  }

  /** Expressions failing so far. */
  failing(): string[] {
    return this.live.filter((l) => !l.ok).map((l) => l.t.expression);
  }

  statuses(): LiveThresholdStatus[] {
    return this.live.map((l) => ({ expression: l.t.expression, ok: l.ok, value: l.value, unit: l.t.unit }));
  }

  private take(source: SecondSource, sec: number): void {
    for (const l of this.live) {
      const failed = l.take(source, sec);
      if (!failed || !l.t.abortOnFail || this.stopped || !this.frame) continue;
      // Judged at the end of this second: the delay counts from the run's start to there.
      if ((sec + 1) * 1000 - this.startMs < (l.t.delayAbortEvalMs ?? 0)) continue;
      this.stopped = {
        threshold: l.t.expression,
        at: sec + 1 - this.frame.baseSec,
        value: l.value ?? 0,
        unit: l.t.unit,
      };
      this.onAbort(this.stopped);
    }
  }
}
