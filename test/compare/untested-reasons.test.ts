import { describe, expect, it } from 'vitest';
import { untestedReason } from '../../src/compare/untested.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import type { Summary } from '../../src/report/summary.js';
import { parseThresholds, type Threshold } from '../../src/report/threshold.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * Why a change both runs measured has no significance, and the measured run that would give it one
 * (untested.ts). The fixtures are two 3-second runs: 46 run requests each, 135 and 166 /status,
 * no job FAILED; 3112 ms and 3238 ms long.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);
const NOISE = 0.05;

function metric(expression: string): Threshold {
  const [t] = parseThresholds([{ expression: `${expression} >= 0`, where: 'test' }]);
  if (!t) throw new Error(expression);
  return { ...t, expression };
}

const why = (expression: string, b: Summary = B, c: Summary = C) => untestedReason(metric(expression), b, c, NOISE);
const lasting = (s: Summary, durationMs: number): Summary => ({ ...s, run: { ...s.run, durationMs } });
const seconds = (s: Summary, length: number): Summary => ({ ...s, series: { ...s.series, length } });

/** The run with `n` FAILED jobs, each 100 ms end to end. */
function failedJobs(s: Summary, n: number): Summary {
  const h = LatencyHistogram.create();
  for (let i = 0; i < n; i++) h.recordMs(100);
  const x = structuredClone(s);
  x.jobs.e2e.FAILED.histogram = h.encode();
  return x;
}

describe('untestedReason', () => {
  it('counts, maxima and minima are never resampled, and no run length changes that', () => {
    expect(why('count(run)')).toEqual({ reason: 'an exact count, never resampled', runMs: null });
    expect(why('max(run)')).toEqual({ reason: 'a maximum is one value, never resampled', runMs: null });
    expect(why('min(run)')).toEqual({ reason: 'a minimum is one value, never resampled', runMs: null });
  });

  it('too few values for a percentile: the counts, and the run at the slower side\'s rate that would hold enough', () => {
    // p99 needs 1000 values; 46 in 3.112 s and 46 in 3.238 s: 14.2/s at the slower, 71 s.
    expect(why('p99(run)')).toEqual({
      reason: 'too few values for p99: 46 and 46, where 1000 put 10 above it',
      runMs: 71_000,
    });
    // The other way round: the same slower side.
    expect(why('p99(run)', C, B).runMs).toBe(71_000);
    // p50 needs 20 values: 46 are enough, so it is not "too few".
    expect(why('p50(run)').reason).not.toMatch(/too few values/);
  });

  it('a run that would hold enough within a second still needs two windows: 2 s', () => {
    expect(why('p99(status)', lasting(B, 100), lasting(C, 100))).toEqual({
      reason: 'too few values for p99: 135 and 166, where 1000 put 10 above it',
      runMs: 2000,
    });
    // 135 values in 135 ms and 166 in 1 s: 1000 values take 7 s at the slower.
    expect(why('p99(status)', lasting(B, 135), lasting(C, 1000)).runMs).toBe(7000);
  });

  it('a side with no values, or no measured time, names no run length', () => {
    expect(why('mean(e2e{status=FAILED})')).toEqual({
      reason: 'too few values for the mean: 0 and 0, where 10 put 10 above it',
      runMs: null,
    });
    // A token timing of runs that streamed nothing: no values at all.
    expect(why('p50(ttft)')).toEqual({ reason: 'too few values for p50: 0 and 0, where 20 put 10 above it', runMs: null });
    expect(why('p99(status)', lasting(B, 0), C).runMs).toBeNull();
    expect(why('p99(status)', B, lasting(C, 0)).runMs).toBeNull();
  });

  it('too few on one side is too few; exactly enough on both is enough', () => {
    expect(why('mean(e2e{status=FAILED})', B, failedJobs(C, 46))).toEqual({
      reason: 'too few values for the mean: 0 and 46, where 10 put 10 above it',
      runMs: null,
    });
    expect(why('mean(e2e{status=FAILED})', failedJobs(B, 9), failedJobs(C, 46)).reason).toMatch(/^too few values for the mean: 9 and 46/);
    expect(why('mean(e2e{status=FAILED})', failedJobs(B, 10), failedJobs(C, 10)).reason).not.toMatch(/too few values/);
  });

  it('per-second windows on one side and run-wide draws on the other: two windows of the shorter run', () => {
    // One second of series in the current run (31 /status): no two windows, so its p50 is drawn run-wide.
    const one = seconds(C, 1);
    const expected = { reason: 'too few per-second windows in one run (two at least)', runMs: 2000 };
    expect(why('p50(status)', B, one)).toEqual(expected);
    expect(why('p50(status)', one, B)).toEqual(expected);
    // 130 s and 200 s: the shorter cuts into windows of 3 s, two of them 6 s.
    expect(why('p50(status)', lasting(B, 130_000), lasting(one, 200_000)).runMs).toBe(6000);
    expect(why('p50(status)', lasting(one, 200_000), lasting(B, 130_000)).runMs).toBe(6000);
  });

  it('otherwise: not resampled for this metric', () => {
    const none = { reason: 'not resampled for this metric', runMs: null };
    // Both sides resample the same way (a row so asked was measured: this is its fallback).
    expect(why('p50(run)')).toEqual(none);
    // No sampler on either side: the rate per second of one status.
    expect(why('rps(run{status=2xx})')).toEqual(none);
    // No sampler on one side only: the current run has no second of series at all.
    expect(why('p50(run)', B, seconds(C, 0))).toEqual(none);
    expect(why('p50(run)', seconds(C, 0), B)).toEqual(none);
  });
});
