import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_WINDOWS, countWindows, firstMeasuredSecond, latencyWindows } from '../../src/compare/windows.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';
import type { Summary } from '../../src/report/summary.js';
import { fixture } from './fixtures/compare-fixture.js';

/*
 * How the per-second series is cut into the windows a bootstrap resamples (windows.ts): one second
 * each up to MAX_WINDOWS seconds, then runs of whole seconds, the last one cut at the series' end.
 */
const STEADY = fixture(fileURLToPath(new URL('./fixtures/steady-load.summary.json', import.meta.url)));
const ones = (n: number): number[] => Array.from({ length: n }, () => 1);

/** The steady run's `run` operation repeated to `seconds` seconds (its 14 seconds over and over). */
function repeated(seconds: number): Summary {
  const s = structuredClone(STEADY);
  const run = s.series.ops.run;
  if (!run) throw new Error('the steady run has run requests');
  const at = (i: number): number => i % STEADY.series.length;
  s.series.length = seconds;
  s.series.ops = {
    run: {
      requests: Array.from({ length: seconds }, (_, i) => run.requests[at(i)] ?? 0),
      latency: Array.from({ length: seconds }, (_, i) => run.latency[at(i)] ?? ''),
      p50: Array.from({ length: seconds }, (_, i) => run.p50[at(i)] ?? null),
      p99: Array.from({ length: seconds }, (_, i) => run.p99[at(i)] ?? null),
    },
  };
  return s;
}

describe('countWindows', () => {
  it('one window a second up to 60 seconds, each column summed apart', () => {
    expect(MAX_WINDOWS).toBe(60);
    expect(countWindows(3, [[1, 2, 3], [10, 20, 30]])).toEqual([[1, 10], [2, 20], [3, 30]]);
    expect(countWindows(60, [ones(60)])).toEqual(ones(60).map(() => [1]));
  });

  it('past 60 seconds, windows of whole seconds; the last is cut at the end', () => {
    const w = countWindows(61, [ones(61)]);
    expect(w).toHaveLength(31);
    expect(w.slice(0, 30).every(([n]) => n === 2)).toBe(true);
    expect(w[30]).toEqual([1]);
    expect(countWindows(181, [ones(181)]).map(([n]) => n)).toEqual([...Array.from({ length: 45 }, () => 4), 1]);
  });

  it('from a later second, cut by the seconds left; seconds a column lacks count 0', () => {
    expect(countWindows(130, [ones(130)], 10)).toEqual(Array.from({ length: 60 }, () => [2]));
    expect(countWindows(5, [[1, 2]])).toEqual([[1], [2], [0], [0], [0]]);
    expect(countWindows(3, [[1, 2, 3]], 3)).toEqual([]);
  });
});

describe('firstMeasuredSecond', () => {
  // The steady run started 690 ms into the series' first second.
  const warm = (ms: number, over: Partial<Summary['series']> = {}): Summary => ({
    ...STEADY,
    series: { ...STEADY.series, ...over },
    warmup: { ms, requests: 0, dropped: 0 },
  });

  it('the first whole second after the warm-up: a warm-up ending on a second starts there', () => {
    expect(STEADY.run.startMs - STEADY.series.startSec * 1000).toBe(690);
    expect(firstMeasuredSecond(STEADY)).toBe(0);
    expect(firstMeasuredSecond(warm(310))).toBe(1);
    expect(firstMeasuredSecond(warm(311))).toBe(2);
    expect(firstMeasuredSecond(warm(1310))).toBe(2);
  });

  it('never before the series starts, never past its end', () => {
    expect(firstMeasuredSecond(warm(310, { startSec: STEADY.series.startSec + 5 }))).toBe(0);
    expect(firstMeasuredSecond(warm(13_310))).toBe(14);
    expect(firstMeasuredSecond(warm(12_310))).toBe(13);
  });
});

describe('latencyWindows', () => {
  it('one window per second that answered, holding that second\'s buckets', () => {
    const run = STEADY.series.ops.run;
    const w = latencyWindows(STEADY, ['run']);
    // Second 13 had no run request: no window.
    expect(w.map((x) => x.total)).toEqual(run?.requests.filter((n) => n > 0));
    const second = (i: number): [number, number][] => SparseHistogram.decode(run?.latency[i] ?? '').buckets();
    expect(w.map((x) => [...x.index].map((ix, j) => [ix, x.count[j]]))).toEqual(
      run?.requests.flatMap((n, i) => (n > 0 ? [second(i)] : [])),
    );
  });

  it('merges the operations named; one the series does not hold adds nothing; none gives no window', () => {
    const both = latencyWindows(STEADY, ['run', 'status']);
    const requests = STEADY.series.ops.run?.requests.map((n, i) => n + (STEADY.series.ops.status?.requests[i] ?? 0));
    expect(both.map((x) => x.total)).toEqual(requests);
    expect(latencyWindows(STEADY, ['run', 'no-such-op'])).toEqual(latencyWindows(STEADY, ['run']));
    expect(latencyWindows(STEADY, [])).toEqual([]);
  });

  it('past 60 seconds, windows of whole seconds merged, the last cut at the end', () => {
    const requests = repeated(71).series.ops.run?.requests ?? [];
    const pairs = (n: number): number[] =>
      Array.from({ length: Math.ceil(n / 2) }, (_, k) => (requests[2 * k] ?? 0) + (k * 2 + 1 < n ? (requests[2 * k + 1] ?? 0) : 0));
    expect(latencyWindows(repeated(70), ['run']).map((x) => x.total)).toEqual(pairs(70).filter((n) => n > 0));
    const last = latencyWindows(repeated(71), ['run']);
    expect(last.map((x) => x.total)).toEqual(pairs(71).filter((n) => n > 0));
    expect(last.at(-1)?.total).toBe(requests[70]);
  });

  it('after a warm-up, the windows are cut by the seconds left: 50 of 70, one second each', () => {
    const s: Summary = { ...repeated(70), warmup: { ms: 19_310, requests: 0, dropped: 0 } };
    expect(firstMeasuredSecond(s)).toBe(20);
    const requests = s.series.ops.run?.requests ?? [];
    expect(latencyWindows(s, ['run']).map((x) => x.total)).toEqual(requests.slice(20).filter((n) => n > 0));
  });

  it('from the first second after the warm-up', () => {
    const s: Summary = { ...STEADY, warmup: { ms: 2310, requests: 0, dropped: 0 } };
    expect(latencyWindows(s, ['run']).map((x) => x.total)).toEqual(
      STEADY.series.ops.run?.requests.slice(3).filter((n) => n > 0),
    );
  });
});
