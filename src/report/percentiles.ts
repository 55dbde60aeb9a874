import { LatencyHistogram } from '../metrics/histogram.js';
import type { Percentiles } from './summary.js';

/** Rounded to the microsecond: histogram values are microseconds, and files should not show float noise. */
function us(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function percentilesOf(h: LatencyHistogram): Percentiles {
  return {
    count: h.count,
    min: us(h.minMs),
    mean: us(h.meanMs),
    p50: us(h.percentileMs(50)),
    p90: us(h.percentileMs(90)),
    p95: us(h.percentileMs(95)),
    p99: us(h.percentileMs(99)),
    max: us(h.maxMs),
  };
}

export function percentilesOfEncoded(encoded: string): Percentiles {
  return percentilesOf(LatencyHistogram.decode(encoded));
}
