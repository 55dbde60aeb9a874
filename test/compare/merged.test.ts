import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/compare/comparison.js';
import { parseGates } from '../../src/compare/gate.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { fixtureSummary, shardSummary } from '../report/fixtures/fixture-summary.js';

describe('a merged shard report is a run like any other', () => {
  it('the two shards merged compare with the whole run as the same run: same scenario and rate, no change, same violations', () => {
    const whole = fixtureSummary();
    const merged = mergeSummaries([shardSummary('1/2'), shardSummary('2/2')]);
    const c = compareRuns(whole, merged, {
      baselineSource: 'whole',
      currentSource: 'merged',
      gates: parseGates(
        [
          'delta(p99(run)) < 1%',
          'delta(rate(429)) == 0',
          'new(violations) == 0',
          'vanished(violations) == 0',
        ].map((expression) => ({ expression, where: 'test' })),
      ),
      significance: 0.95,
    });
    expect(c.forced).toEqual([]);
    expect(c.current.shards).toEqual(['1/2', '2/2']);
    expect(c.current.offered).toBe(c.baseline.offered);
    expect(c.regressions).toEqual([]);
    expect(c.improvements).toEqual([]);
    for (const row of c.deltas.filter((r) => /^count\(|^p\d+\(|^rate\(/.test(r.metric)))
      expect(row.delta, row.metric).toBe(0);
    expect(c.checks.filter((r) => r.change === 'new' || r.change === 'vanished')).toEqual([]);
    expect(c.checks.some((r) => r.change === 'still')).toBe(true);
    expect(c.gates.map((g) => g.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    expect(c.verdict.status).toBe('passed');
  });
});
