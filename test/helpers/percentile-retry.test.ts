import { describe, expect, it } from 'vitest';
import { failedOnlyOnPercentiles } from './percentile-retry.js';

const threshold = (expression: string, ok: boolean) => ({ expression, ok });
const violation = { id: 'ratelimit.early' };

describe('which failed runs the shipped-scenario tests try again', () => {
  it('only clean runs whose failed thresholds are all percentiles', () => {
    expect(
      failedOnlyOnPercentiles({
        violations: [],
        thresholds: [threshold('p99(run) < 500ms', false), threshold('violations == 0', true)],
      }),
    ).toBe(true);
    expect(
      failedOnlyOnPercentiles({ violations: [], thresholds: [threshold('p99.9(status) < 1s', false)] }),
    ).toBe(true);
    // A violation, a non-latency threshold, or nothing failed at all: no second try.
    expect(
      failedOnlyOnPercentiles({
        violations: [violation],
        thresholds: [threshold('p99(run) < 500ms', false)],
      }),
    ).toBe(false);
    expect(
      failedOnlyOnPercentiles({
        violations: [],
        thresholds: [threshold('p99(run) < 500ms', false), threshold('rate(429) < 1%', false)],
      }),
    ).toBe(false);
    expect(
      failedOnlyOnPercentiles({ violations: [], thresholds: [threshold('p99(run) < 500ms', true)] }),
    ).toBe(false);
  });
});
