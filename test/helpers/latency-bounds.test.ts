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

  it('in a generator-limited run, time-bound findings and the violation thresholds they alone failed judge the host', () => {
    const run = (generatorLimited: boolean, ids: string[]) =>
      failuresBesideLatency({
        violations: ids.map((id) => ({ id })),
        thresholds: [threshold('violations == 0', false), threshold('count(violation:lifecycle.*) == 0', false)],
        verdict: { generatorLimited },
      });
    expect(run(true, ['lifecycle.runsync-wait-exceeded'])).toEqual([]);
    // Fed, the same finding is a finding.
    expect(run(false, ['lifecycle.runsync-wait-exceeded'])).toEqual([
      'violation lifecycle.runsync-wait-exceeded',
      'threshold violations == 0',
      'threshold count(violation:lifecycle.*) == 0',
    ]);
    // Starved, a rule that is not about time still counts, and so do the thresholds it failed.
    expect(run(true, ['lifecycle.runsync-wait-exceeded', 'transition.backwards'])).toEqual([
      'violation transition.backwards',
      'threshold violations == 0',
      'threshold count(violation:lifecycle.*) == 0',
    ]);
  });
});
