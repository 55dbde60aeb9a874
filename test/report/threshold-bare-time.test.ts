import { describe, expect, it } from 'vitest';
import { parseGates } from '../../src/compare/gate.js';
import { ConfigError } from '../../src/core/config-error.js';
import { withThresholds } from '../../src/report/summary-thresholds.js';
import { parseThresholds, type ThresholdSource } from '../../src/report/threshold.js';
import { fixtureSummary } from './fixtures/fixture-summary.js';

/*
 * Issue 34 trap 1, in thresholds: `p99(run) < 500` was read as 500 ms, silently. A time needs its
 * unit now; a rate may still be a percentage or a documented 0–1 fraction, and counts and requests
 * per second are plain numbers.
 */

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.where}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('a time threshold needs its unit', () => {
  it('a bare time is refused with both readings, every one at once, named where it came from', () => {
    const sources: ThresholdSource[] = [
      { expression: 'p99(run) < 500', where: '--threshold' },
      { expression: 'p95(e2e{status=COMPLETED}) <= 30', where: 'smoke.yaml: thresholds[1]' },
      { expression: 'max(delayTime) < 1', where: '--slo' },
      { expression: 'mean(latency) < 2.5', where: '--threshold' },
    ];
    expect(issuesOf(() => parseThresholds(sources))).toEqual([
      '--threshold: "p99(run) < 500": 500 has no unit: write "500s" (500 seconds) or "500ms" (500 milliseconds)',
      'smoke.yaml: thresholds[1]: "p95(e2e{status=COMPLETED}) <= 30": 30 has no unit: write "30s" (30 seconds) or "30ms" (30 milliseconds)',
      '--slo: "max(delayTime) < 1": 1 has no unit: write "1s" (1 second) or "1ms" (1 millisecond)',
      '--threshold: "mean(latency) < 2.5": 2.5 has no unit: write "2.5s" (2.5 seconds) or "2.5ms" (2.5 milliseconds)',
    ]);
  });

  it('with a unit, or 0, a time is read as before', () => {
    const t = parseThresholds(['p99(run) < 500ms', 'p99(run) < 1.5s', 'p50(e2e) > 0', 'p99(status) < 800us']);
    expect(t.map((x) => x.target)).toEqual([500, 1500, 0, 0.8]);
  });

  it('rates, counts and requests per second keep their plain numbers', () => {
    const t = parseThresholds([
      'rate(429) < 1%',
      'rate(errors{op=runsync}) <= 0.25',
      'violations == 0',
      'count(violations) == 0',
      'count(jobs) > 10',
      'count(run) >= 5',
      'rps(requests) > 5',
      'count(dropped) == 0',
    ]);
    expect(t.map((x) => [x.unit, x.target])).toEqual([
      ['ratio', 0.01],
      ['ratio', 0.25],
      ['count', 0],
      ['count', 0],
      ['count', 10],
      ['count', 5],
      ['rps', 5],
      ['count', 0],
    ]);
  });

  it('a gate on the change of a time needs its unit too (a % is relative and stays valid)', () => {
    expect(issuesOf(() => parseGates([{ expression: 'delta(p95(e2e)) < 250', where: '--gate' }]))).toEqual([
      '--gate: gate "delta(p95(e2e)) < 250": 250 has no unit: write "250s" (250 seconds) or "250ms" (250 milliseconds)',
    ]);
    const [absolute, relative] = parseGates([
      { expression: 'delta(p95(e2e)) < 250ms', where: '--gate' },
      { expression: 'delta(p99(run)) < 10%', where: '--gate' },
    ]);
    expect([absolute?.target, absolute?.relative, relative?.target, relative?.relative]).toEqual([
      250,
      false,
      0.1,
      true,
    ]);
  });

  it('a summary written before units were required still loads: its stored bare times are milliseconds', () => {
    const s = fixtureSummary();
    const old = {
      ...s,
      thresholds: [{ expression: 'p99(cancel) < 10', value: null, ok: false, unit: 'ms' as const }],
    };
    const judged = withThresholds(old, []);
    expect(judged.thresholds).toMatchObject([{ expression: 'p99(cancel) < 10', ok: true, unit: 'ms' }]);
    // The same text given now, as a flag, is refused.
    expect(() => parseThresholds([{ expression: 'p99(cancel) < 10', where: '--threshold' }])).toThrow(
      '10 has no unit',
    );
  });
});
