import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/compare/comparison.js';
import type { Comparison } from '../../src/compare/compare-data.js';
import { parseGates } from '../../src/compare/gate.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * Issue 17 in `jobstorm compare`: a run in which jobstorm itself was the bottleneck has client-side
 * latencies that are partly its own. A gate on them cannot blame the service for a change then;
 * the service's own figures (executionTime) still can.
 */

const GATES = [
  'delta(p95(e2e{status=COMPLETED})) < 50ms',
  'delta(p50(executionTime)) < 10%',
  'delta(p99(run)) < 10%',
];
const STRETCH = { at: 1000, durationMs: 3000, busy: 0.99, loopDelayP99Ms: 40, latenessP99Ms: 55 };

function limited(s: Summary): Summary {
  return { ...s, generatorLimited: [STRETCH] };
}

function run(b: Summary, c: Summary): Comparison {
  return compareRuns(b, c, {
    baselineSource: 'baseline',
    currentSource: 'current',
    gates: parseGates(GATES.map((expression) => ({ expression, where: 'test' }))),
    significance: 0.95,
  });
}

const status = (c: Comparison): string[] => c.gates.map((g) => `${g.expression}: ${g.status}`);

describe('compare with a generator-limited run', () => {
  it('neither run limited: the end-to-end regression fails its gate', () => {
    const c = run(fixture(BASELINE_FILE), fixture(CURRENT_FILE));
    expect(status(c)).toEqual([
      `${GATES[0] ?? ''}: failed`,
      `${GATES[1] ?? ''}: failed`,
      `${GATES[2] ?? ''}: passed`,
    ]);
    expect(c.verdict.reasons.join(' ')).not.toContain('generator-limited');
  });

  it('the current run limited: the client-timed failure is inconclusive, the service-timed one still fails, a pass stays a pass', () => {
    const c = run(fixture(BASELINE_FILE), limited(fixture(CURRENT_FILE)));
    expect(status(c)).toEqual([
      `${GATES[0] ?? ''}: inconclusive`,
      `${GATES[1] ?? ''}: failed`,
      `${GATES[2] ?? ''}: passed`,
    ]);
    expect(c.gates[0]?.reason).toBe(
      'change +88.1ms (this metric cannot be resampled: judged on its value); but jobstorm itself was the bottleneck in the current run (3 s), so p95(e2e{status=COMPLETED}) there includes its own queueing: rerun with more CPU or --workers',
    );
    expect(c.verdict.status).toBe('failed');
    expect(c.verdict.reasons).toContain(
      "the current run was generator-limited for 3 s: its client-side latencies and rates there include jobstorm's own queueing",
    );
  });

  it('the baseline limited: a client-timed pass may hide a regression, so it is inconclusive too', () => {
    const c = run(limited(fixture(BASELINE_FILE)), fixture(CURRENT_FILE));
    expect(status(c)).toEqual([
      `${GATES[0] ?? ''}: inconclusive`,
      `${GATES[1] ?? ''}: failed`,
      `${GATES[2] ?? ''}: inconclusive`,
    ]);
    expect(c.gates[2]?.reason).toContain('in the baseline (3 s)');
  });
});
