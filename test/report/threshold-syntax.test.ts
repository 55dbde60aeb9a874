import { describe, expect, it } from 'vitest';
import {
  THRESHOLD_METRICS,
  metricNames,
  unitOf,
  type MetricSpec,
} from '../../src/report/threshold-metrics.js';
import { thresholdSources } from '../../src/report/threshold-source.js';
import { windowLine } from '../../src/report/threshold-window-line.js';
import { durationMs, splitWindow } from '../../src/report/threshold-window-syntax.js';
import type { ThresholdResult } from '../../src/report/summary.js';

/** The threshold grammar's small parts one at a time: windows, durations, sources, units, the window line. */
describe('durations and windows', () => {
  it('reads every unit, with or without a space and a fraction, and nothing else', () => {
    expect(durationMs('1500ms')).toBe(1500);
    expect(durationMs(' 30 s ')).toBe(30_000);
    expect(durationMs('2m')).toBe(120_000);
    expect(durationMs('1.5h')).toBe(5_400_000);
    for (const bad of ['30', 's', '30 sec', 'x30s', '30sx', '-1s', ''])
      expect(durationMs(bad)).toBeUndefined();
  });

  it('splits "over" off, a window in whole seconds of 1 s or more', () => {
    expect(splitWindow({ expression: '  p99(run) < 500ms   over 30s ' })).toEqual({
      core: 'p99(run) < 500ms',
      expression: 'p99(run) < 500ms   over 30s',
      windowS: 30,
    });
    expect(splitWindow({ expression: 'p99(run) < 500ms OVER 1s' })).toMatchObject({ windowS: 1 });
    expect(splitWindow({ expression: 'p99(run) < 500ms over 2m' })).toMatchObject({ windowS: 120 });
    expect(splitWindow({ expression: 'p99(run) < 500ms over 1000ms' })).toMatchObject({ windowS: 1 });
    expect(splitWindow({ expression: 'p99(run) < 500ms over 999ms' })).toMatch(
      /whole seconds, 1s or more.*"999ms"/,
    );
    expect(splitWindow({ expression: 'p99(run) < 500ms over 1500ms' })).toMatch(/whole seconds/);
    // A window of no time is whole seconds too (0 % 1000 is 0): it is refused by being under 1 s.
    expect(splitWindow({ expression: 'p99(run) < 500ms over 0s' })).toMatch(
      /whole seconds, 1s or more.*"0s"/,
    );
    expect(splitWindow({ expression: 'p99(run) < 500ms over soon' })).toMatch(
      /cannot read the window "over soon"/,
    );
    expect(splitWindow({ expression: 'p99(run) < 500ms' })).toEqual({
      core: 'p99(run) < 500ms',
      expression: 'p99(run) < 500ms',
    });
  });

  it("writes the object form's window into the expression, once", () => {
    expect(splitWindow({ expression: ' rate(429) < 1% ', windowMs: 5000 })).toEqual({
      core: 'rate(429) < 1%',
      expression: 'rate(429) < 1% over 5s',
      windowS: 5,
    });
    expect(splitWindow({ expression: 'rate(429) < 1%', windowMs: 500 })).toMatch(/"500 ms"/);
    expect(splitWindow({ expression: 'rate(429) < 1%', windowMs: 2500 })).toMatch(/whole seconds/);
    expect(splitWindow({ expression: 'rate(429) < 1%', windowMs: 0 })).toMatch(/whole seconds.*"0 ms"/);
    expect(splitWindow({ expression: 'rate(429) < 1% over 5s', windowMs: 5000 })).toMatch(/given twice/);
  });

  it('takes delayAbortEval only with abortOnFail, and only 0 or more', () => {
    const e = 'rate(429) < 1%';
    expect(splitWindow({ expression: e, delayAbortEvalMs: 0 })).toMatch(/only applies with abortOnFail/);
    expect(splitWindow({ expression: e, delayAbortEvalMs: 0, abortOnFail: false })).toMatch(/only applies/);
    expect(splitWindow({ expression: e, delayAbortEvalMs: -1, abortOnFail: true })).toMatch(/0s or more/);
    expect(splitWindow({ expression: e, delayAbortEvalMs: Number.NaN, abortOnFail: true })).toMatch(
      /0s or more/,
    );
    expect(splitWindow({ expression: e, delayAbortEvalMs: 0, abortOnFail: true })).toEqual({
      core: e,
      expression: e,
    });
  });
});

describe('threshold sources from a scenario file', () => {
  it("names each by its place, keeps the object form's fields and drops abortOnFail when not live", () => {
    const specs = [
      'p99(run) < 1s',
      { threshold: 'rate(429) < 1%', windowMs: 5000, abortOnFail: true, delayAbortEvalMs: 2000 },
      { threshold: 'rate(5xx) < 1%', abortOnFail: false },
    ];
    expect(thresholdSources(specs, 'a.yaml')).toEqual([
      { expression: 'p99(run) < 1s', where: 'a.yaml: thresholds[0]' },
      {
        expression: 'rate(429) < 1%',
        where: 'a.yaml: thresholds[1]',
        windowMs: 5000,
        delayAbortEvalMs: 2000,
        abortOnFail: true,
      },
      { expression: 'rate(5xx) < 1%', where: 'a.yaml: thresholds[2]' },
    ]);
    expect(thresholdSources(specs, 'a.yaml', { live: true })[1]).toHaveProperty('abortOnFail', true);
    expect(thresholdSources(specs, 'a.yaml', { live: false })[1]).not.toHaveProperty('abortOnFail');
  });
});

describe('metric units', () => {
  const spec = (family: MetricSpec['family'], unit?: MetricSpec['unit']): MetricSpec => ({
    family,
    aggregations: [],
    tags: {},
    describe: '',
    ...(unit === undefined ? {} : { unit }),
  });

  it("follows the aggregation first, then the spec's unit, then the family", () => {
    expect(unitOf(spec('latency', 'ratio'), 'count')).toBe('count');
    expect(unitOf(spec('latency', 'ms'), 'rate')).toBe('ratio');
    expect(unitOf(spec('latency', 'ms'), 'rps')).toBe('rps');
    expect(unitOf(spec('scaling', 'ratio'), 'value')).toBe('ratio');
    expect(unitOf(spec('latency'), 'percentile')).toBe('ms');
    expect(unitOf(spec('job-timing'), 'percentile')).toBe('ms');
    expect(unitOf(spec('counter'), 'value')).toBe('count');
    expect(unitOf(spec('scaling'), 'value')).toBe('count');
  });

  it('suggests every catalogued name and the violation form', () => {
    const names = metricNames();
    expect(names).toEqual([...THRESHOLD_METRICS.keys(), 'violation:<id or glob>']);
    expect(names).toContain('drainTime');
  });
});

describe('the window line', () => {
  const windowed = (over: Partial<ThresholdResult>): ThresholdResult => ({
    expression: 'p99(run) < 500ms over 10s',
    value: 700,
    ok: false,
    unit: 'ms',
    window: { seconds: 10, judged: 3, failed: 1, worst: { at: 20, value: 700 }, failing: [[20, 30]] },
    ...over,
  });

  it('is undefined for a whole-run threshold', () => {
    expect(windowLine({ expression: 'p99(run) < 500ms', value: 1, ok: true, unit: 'ms' })).toBeUndefined();
  });

  it('names the worst window, the failed count and the whole run, and says which held', () => {
    const fails = windowLine(windowed({ wholeRun: { value: 400, ok: true } }));
    expect(fails).toMatch(/^worst 10s window from t\+20s: 700 ?ms; 1 of 3 windows failed; whole run 400 ?ms/);
    expect(fails).toMatch(/ \(holds over the whole run, fails in a window\)$/);
    const holds = windowLine(
      windowed({
        ok: true,
        value: 300,
        window: { seconds: 10, judged: 1, failed: 0, worst: { at: 0, value: 300 }, failing: [] },
        wholeRun: { value: 250, ok: true },
      }),
    );
    expect(holds).toMatch(/; 0 of 1 window failed; whole run 250 ?ms \(holds\)$/);
    expect(windowLine(windowed({ wholeRun: { value: 600, ok: false } }))).toMatch(/whole run 600 ?ms$/);
    expect(windowLine(windowed({}))).toMatch(/windows failed$/);
  });

  it('says when no window had data', () => {
    const none = windowLine(
      windowed({ value: null, window: { seconds: 30, judged: 0, failed: 0, worst: null, failing: [] } }),
    );
    expect(none).toBe('no 30s window had data; 0 of 0 windows failed');
  });
});
