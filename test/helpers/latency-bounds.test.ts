import { describe, expect, it } from 'vitest';
import { failuresBesideLatency, isLatencyBound } from './latency-bounds.js';

const threshold = (expression: string, ok: boolean) => ({ expression, ok });

describe('what a real-time run is held to beside its latency bounds', () => {
  it('percentiles, max, min and mean are latency bounds; rates, counts and violations are not', () => {
    expect(isLatencyBound('p99(run) < 500ms')).toBe(true);
    expect(isLatencyBound('p99.9(status) < 1s')).toBe(true);
    expect(isLatencyBound('max(run) < 2s')).toBe(true);
    expect(isLatencyBound('rate(429) < 1%')).toBe(false);
    expect(isLatencyBound('violations == 0')).toBe(false);
  });

  it('a failed latency bound is left out; a violation or any other failed threshold is not', () => {
    expect(
      failuresBesideLatency({
        violations: [],
        thresholds: [threshold('p99(run) < 500ms', false), threshold('violations == 0', true)],
      }),
    ).toEqual([]);
    expect(
      failuresBesideLatency({
        violations: [{ id: 'ratelimit.early' }],
        thresholds: [threshold('p99(run) < 500ms', false), threshold('rate(429) < 1%', false)],
      }),
    ).toEqual(['violation ratelimit.early', 'threshold rate(429) < 1%']);
  });
});
