import { describe, expect, it } from 'vitest';
import type { GateResult } from '../../src/compare/compare-data.js';
import { COMPARE_DEFAULTS } from '../../src/compare/comparison.js';
import { evaluateGates } from '../../src/compare/gate-evaluation.js';
import { parseGates } from '../../src/compare/gate.js';
import type { Summary } from '../../src/report/summary.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/*
 * Each gate judged on summaries changed one field at a time (issue 39: the mutation run's
 * survivors in src/compare/gate-evaluation.ts): which ids are new or vanished, a change exactly on
 * its limit, no data, a baseline of zero, noise, and a generator-limited run.
 */
const B = fixture(BASELINE_FILE);
const C = fixture(CURRENT_FILE);

function judge(
  expression: string,
  b: Summary = B,
  c: Summary = C,
  significance: number | null = null,
): GateResult {
  const gates = parseGates([{ expression, where: 'test' }]);
  const [r] = evaluateGates(gates, b, c, { ...COMPARE_DEFAULTS, significance });
  if (!r) throw new Error('no result');
  return r;
}

type Firing = [id: string, count: number, severity?: 'error' | 'warning'];

function firing(s: Summary, list: Firing[]): Summary {
  return {
    ...s,
    violations: list.map(([id, count, severity = 'error']) => ({ id, count, severity, examples: [] })),
  };
}

const withJobs = (s: Summary, submitted: number): Summary => ({ ...s, jobs: { ...s.jobs, submitted } });
const STRETCH = { at: 1000, durationMs: 3000, busy: 0.99, loopDelayP99Ms: 40, latenessP99Ms: 55 };
const limited = (s: Summary): Summary => ({ ...s, generatorLimited: [STRETCH] });

describe('new() and vanished(): check ids firing in one run and not the other', () => {
  const b = firing(B, [
    ['transition.backwards', 2],
    ['webhook.missing', 1, 'warning'],
  ]);
  const c = firing(C, [
    ['transition.backwards', 1],
    ['status.run', 3],
    ['server.error', 1],
    ['schema.status', 0],
  ]);

  it('new: ids firing now and not before, sorted; an id with no finding does not fire', () => {
    const r = judge('new(violations) == 0', b, c);
    expect(r).toMatchObject({ status: 'failed', value: 2, baseline: 2, current: 3, unit: 'count' });
    expect(r.reason).toBe('2 new check ids: server.error, status.run');
    expect(judge('new(violations) <= 2', b, c).status).toBe('passed');
  });

  it('vanished: ids that fired before and not now', () => {
    const r = judge('vanished(violations) == 0', b, c);
    expect(r).toMatchObject({ status: 'failed', value: 1 });
    expect(r.reason).toBe('1 vanished check id: webhook.missing');
    expect(judge('vanished(violations) == 0', b, b).reason).toBe('0 vanished check ids');
  });

  it('a glob and a severity narrow the ids', () => {
    expect(judge('new(violation:status.*) == 0', b, c).reason).toBe('1 new check id: status.run');
    expect(judge('new(violation:transition.*) == 0', b, c).status).toBe('passed');
    expect(judge('vanished(violations{severity=warning}) == 0', b, c).reason).toBe(
      '1 vanished check id: webhook.missing',
    );
    expect(judge('new(violations{severity=warning}) == 0', b, c).value).toBe(0);
  });
});

describe('delta(): the change, on its limit and off it', () => {
  it('an absolute change exactly on its limit, for every comparator', () => {
    const [b, c] = [withJobs(B, 40), withJobs(C, 46)];
    const holds = (op: string, limit: number): boolean =>
      judge(`delta(count(jobs)) ${op} ${String(limit)}`, b, c).status === 'passed';
    expect([
      holds('<', 6),
      holds('<=', 6),
      holds('>', 6),
      holds('>=', 6),
      holds('==', 6),
      holds('!=', 6),
    ]).toEqual([false, true, false, true, true, false]);
    expect(judge('delta(count(jobs)) < 10', b, c).reason).toBe('change +6');
    expect(judge('delta(count(jobs)) < 10', c, b).reason).toBe('change −6');
  });

  it('a relative change is the change over the baseline, exactly on its limit too', () => {
    const [b, c] = [withJobs(B, 40), withJobs(C, 46)];
    expect(judge('delta(count(jobs)) < 15%', b, c)).toMatchObject({
      status: 'failed',
      value: 0.15,
      unit: 'relative',
    });
    expect(judge('delta(count(jobs)) <= 15%', b, c)).toMatchObject({
      status: 'passed',
      reason: 'change +15.0%',
    });
    expect(judge('delta(count(jobs)) > -20%', c, b).reason).toBe('change −13.0%');
    expect(judge('delta(count(jobs)) < 1%', b, b).reason).toBe('change +0.0%');
  });

  it('a change of a fraction is in percentage points', () => {
    expect(judge('delta(rate(429)) < 0.5%').reason).toBe('change +0.0 pp');
  });

  it('a baseline of zero: no change passes; any change relative to it is undefined', () => {
    const zero = withJobs(B, 0);
    expect(judge('delta(count(jobs)) < 10%', zero, withJobs(C, 0))).toMatchObject({
      status: 'passed',
      value: 0,
    });
    expect(judge('delta(count(jobs)) < 10%', zero, withJobs(C, 5))).toMatchObject({
      status: 'inconclusive',
      value: null,
      reason: "the baseline's count(jobs) is 0: a change relative to it is undefined",
    });
    // An absolute limit has no such trouble.
    expect(judge('delta(count(jobs)) < 10', zero, withJobs(C, 5)).status).toBe('passed');
  });

  it('no data: inconclusive, naming the run that has none', () => {
    const noRun: Summary = {
      ...B,
      operations: Object.fromEntries(Object.entries(B.operations).filter(([op]) => op !== 'run')),
    };
    expect(judge('delta( p99(StartPod) ) < 10%')).toMatchObject({
      status: 'inconclusive',
      value: null,
      reason: 'no data for p99(StartPod) in the baseline and the current run',
    });
    expect(judge('delta(p99(run)) < 10%', noRun, C).reason).toBe('no data for p99(run) in the baseline');
    expect(judge('delta(p99(run)) < 10%', C, noRun).reason).toBe('no data for p99(run) in the current run');
  });
});

describe('delta() with a significance level', () => {
  // rps(run) is 3.9 % lower in the current run, well within its per-second noise.
  const gate = 'delta(rps(run)) > 0%';

  it('without one, a change past the limit fails on its value', () => {
    expect(judge(gate)).toMatchObject({ status: 'failed', reason: 'change −3.9%' });
  });

  it('with one, a change past the limit but within noise passes, saying so', () => {
    const r = judge(gate, B, C, 0.95);
    expect(r.status).toBe('passed');
    expect(r.reason).toBe(
      'change −3.9% is past the limit but within noise (confidence 13.3% < 95%, Holm-corrected over 1 gated metric)',
    );
  });

  it('a confidence exactly at the level is significant', () => {
    const p = judge(gate, B, C, 0.95).significance?.corrected.p ?? Number.NaN;
    const level = 1 - p;
    // The level is chosen so that 1 - level is p again, exactly.
    expect(1 - level).toBe(p);
    const r = judge(gate, B, C, level);
    expect(r.status).toBe('failed');
    expect(r.reason).toBe('change −3.9%, significant (confidence 13.3%, Holm-corrected over 1 gated metric)');
  });

  it('a metric that cannot be resampled is judged on its value, and says so', () => {
    const r = judge('delta(count(jobs)) > 10', withJobs(B, 40), withJobs(C, 46), 0.95);
    expect(r).toMatchObject({
      status: 'failed',
      reason: 'change +6 (this metric cannot be resampled: judged on its value)',
    });
  });
});

describe('delta() and a generator-limited run', () => {
  it('a client-timed failure with both runs limited is inconclusive, naming both', () => {
    const r = judge(gate2(), limited(B), limited(C));
    expect(r.status).toBe('inconclusive');
    expect(r.reason).toContain('in the baseline (3 s) and the current run (3 s)');
  });

  it('the baseline alone limited names the baseline alone', () => {
    const r = judge(gate2(), limited(B), C);
    expect(r.status).toBe('inconclusive');
    expect(r.reason).toContain('bottleneck in the baseline (3 s), so');
  });

  it('rates per second are client-timed; counts, delayTime and executionTime are not', () => {
    expect(judge('delta(rps(run)) > 0%', B, limited(C)).status).toBe('inconclusive');
    expect(judge('delta(count(jobs)) > 0', B, limited(C)).status).toBe('failed');
    expect(judge('delta(p50(delayTime)) > 1ms', B, limited(C)).status).toBe('failed');
  });

  it('a gate already inconclusive keeps its own reason', () => {
    expect(judge('delta(p99(StartPod)) < 10%', limited(B), limited(C)).reason).toBe(
      'no data for p99(StartPod) in the baseline and the current run',
    );
  });
});

/** A client-timed gate the fixture fails: end-to-end time grew by 88 ms. */
function gate2(): string {
  return 'delta(p95(e2e{status=COMPLETED})) < 50ms';
}
