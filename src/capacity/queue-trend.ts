import type { TimedReading } from './timed-reading.js';

export interface QueueTrend {
  /** /health samples inside the measured window. */
  samples: number;
  first: number | null;
  last: number | null;
  max: number | null;
  /** Least-squares slope of the queue depth, jobs per second (null with fewer than 3 samples). */
  growthPerSec: number | null;
  /** The queue stopped growing: its slope stayed within the tolerance. */
  steady: boolean;
}

/** Least-squares slope of y over x (x in ms), per second. */
export function slopePerSec(points: readonly { x: number; y: number }[]): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? null : (num / den) * 1000;
}

/**
 * Judges whether the queue reached a steady state within the measured window. Below capacity the
 * queue holds still (or wobbles); above it, it grows by (offered − capacity) jobs every second.
 * A slope above `tolerance × rate` counts as growth, but only when the queue also rose by more than
 * that share of the window's arrivals (and more than two jobs), so that jitter of a few jobs on an
 * almost empty queue is not mistaken for it.
 */
export function queueTrend(samples: readonly TimedReading[], rate: number, tolerance: number): QueueTrend {
  const depths = samples.map((s) => s.inQueue);
  const growthPerSec = slopePerSec(samples.map((s) => ({ x: s.atMs, y: s.inQueue })));
  const first = depths[0] ?? null;
  const last = depths[depths.length - 1] ?? null;
  const rose = first !== null && last !== null ? last - first : 0;
  const spanSec =
    samples.length > 1 ? ((samples[samples.length - 1]?.atMs ?? 0) - (samples[0]?.atMs ?? 0)) / 1000 : 0;
  const growing =
    growthPerSec !== null &&
    growthPerSec > Math.max(tolerance * rate, 0.5) &&
    rose > Math.max(2, tolerance * rate * spanSec);
  return {
    samples: samples.length,
    first,
    last,
    max: depths.length ? Math.max(...depths) : null,
    growthPerSec: growthPerSec === null ? null : Math.round(growthPerSec * 1000) / 1000,
    steady: !growing,
  };
}

/**
 * Watches a step's /health samples as they arrive and says when the queue is growing without
 * bound: it grew at each of the last `run` samples and holds more than `seconds` of arrivals. Such
 * a step cannot pass, so it is stopped rather than left to pile up work the next step must wait for.
 */
export class QueueWatch {
  private previous: number | undefined;
  private rises = 0;

  constructor(
    private readonly rate: number,
    private readonly seconds: number,
    private readonly run = 4,
  ) {}

  /** True once the queue is judged unbounded. */
  add(sample: TimedReading): boolean {
    const depth = sample.inQueue;
    this.rises = this.previous !== undefined && depth > this.previous ? this.rises + 1 : 0;
    this.previous = depth;
    return this.rises >= this.run && depth > this.rate * this.seconds;
  }
}
