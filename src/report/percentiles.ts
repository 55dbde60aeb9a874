import { LatencyHistogram } from '../metrics/histogram.js';
import type { Percentiles } from './summary.js';

/** Rounded to the microsecond: histogram values are microseconds, and files should not show float noise. */
function us(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const LEVELS = [50, 90, 95, 99] as const;

export function percentilesOf(h: LatencyHistogram): Percentiles {
  const { min, mean, at } = h.summaryMs(LEVELS);
  const [p50 = 0, p90 = 0, p95 = 0, p99 = 0] = at;
  return {
    count: h.count,
    min: us(min),
    mean: us(mean),
    p50: us(p50),
    p90: us(p90),
    p95: us(p95),
    p99: us(p99),
    max: us(h.maxMs),
  };
}

export function percentilesOfEncoded(encoded: string): Percentiles {
  return percentilesOf(LatencyHistogram.decode(encoded));
}
