import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { evaluateThresholds } from '../../src/report/threshold-evaluation.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/* Issue 13 item 9: microseconds are a time unit in thresholds, spelled us, µs (micro sign) or μs (Greek mu). */
describe('microsecond thresholds', () => {
  it.each([
    ['p99(run) < 800us', 0.8],
    ['p99(run) < 800µs', 0.8],
    ['p99(run) < 800μs', 0.8],
    ['p50(status) <= 1500 us', 1.5],
    ['max(health) < 250.5us', 0.2505],
  ])('%s has a target of %d ms', (expression, ms) => {
    const [t] = parseThresholds([expression]);
    expect(t?.unit).toBe('ms');
    expect(t?.target).toBeCloseTo(ms, 12);
  });

  it('compares in milliseconds: 5.003 ms is above 5000us and below 5100µs', () => {
    const results = evaluateThresholds(
      parseThresholds(['p99(cancel) < 5000us', 'p99(cancel) < 5100µs']),
      fixtureSummary(),
    );
    expect(results.map((r) => r.ok)).toEqual([false, true]);
  });

  it('still refuses a unit that is not one, naming the ones that are', () => {
    let error: unknown;
    try {
      parseThresholds(['p99(run) < 5ns', 'rate(429) < 5us']);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.message)).toEqual([
      '"p99(run) < 5ns": unit "ns" is not a time unit; use us (or µs), ms, s or m',
      '"rate(429) < 5us": a rate is compared with a percentage (1%) or a fraction (0.01), not "us"',
    ]);
  });
});
