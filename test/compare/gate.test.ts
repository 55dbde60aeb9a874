import { describe, expect, it } from 'vitest';
import { parseGates } from '../../src/compare/gate.js';
import { ConfigError } from '../../src/core/config-error.js';

function one(expression: string): ReturnType<typeof parseGates>[number] {
  const [g] = parseGates([{ expression, where: '--gate' }]);
  if (!g) throw new Error('no gate');
  return g;
}

function issues(...expressions: string[]): string[] {
  try {
    parseGates(
      expressions.map((expression, i) => ({ expression, where: `scenario.yaml: compare.gates[${i}]` })),
    );
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.where}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('gate grammar (the threshold grammar with delta(), new(), vanished())', () => {
  it('reads the four forms of the issue', () => {
    expect(one('delta(p99(run)) < 10%')).toMatchObject({
      kind: 'delta',
      comparator: '<',
      target: 0.1,
      relative: true,
      unit: 'relative',
    });
    expect(one('delta(p99(run)) < 10%').metric).toMatchObject({
      metric: 'run',
      aggregation: { kind: 'percentile', percentile: 99 },
    });
    expect(one('delta(p95(e2e{status=COMPLETED})) < 250ms')).toMatchObject({
      kind: 'delta',
      target: 250,
      relative: false,
      unit: 'ms',
    });
    expect(one('delta(p95(e2e{status=COMPLETED})) < 250ms').metric.tags).toEqual({ status: 'COMPLETED' });
    expect(one('delta(rate(429)) < 0.5%')).toMatchObject({ target: 0.005, relative: false, unit: 'ratio' });
    expect(one('new(violations) == 0')).toMatchObject({
      kind: 'new',
      comparator: '==',
      target: 0,
      unit: 'count',
    });
    expect(one('vanished(violation:transition.*) == 0')).toMatchObject({ kind: 'vanished' });
  });

  it('takes other units and negative limits', () => {
    expect(one('delta(p50(run)) <= -5ms').target).toBe(-5);
    expect(one('delta(max(executionTime)) < 1.5s').target).toBe(1500);
    expect(one('delta(rps(run)) > -10%')).toMatchObject({ target: -0.1, relative: true });
  });

  it('an unknown metric is a configuration error naming the gate and where it came from', () => {
    const [msg] = issues('delta(p99(runn)) < 10%');
    expect(msg).toMatch(
      /^scenario\.yaml: compare\.gates\[0\]: gate "delta\(p99\(runn\)\) < 10%": unknown metric "runn"; did you mean "run"\?/,
    );
  });

  it('reports every bad gate at once', () => {
    const found = issues(
      'p99(run) < 500ms',
      'new(p99(run)) == 0',
      'delta(p99(run)) < 10 apples',
      'delta(rate(429)) < 1ms',
      'delta(p99(run)) < 10%',
    );
    expect(found).toHaveLength(4);
    expect(found[0]).toMatch(/compare\.gates\[0\].*a gate compares two runs: write delta\(<metric>\)/);
    expect(found[1]).toMatch(/compare\.gates\[1\].*new\(\) counts check ids/);
    expect(found[2]).toMatch(/compare\.gates\[2\].*unit "apples" is not a time unit/);
    expect(found[3]).toMatch(/compare\.gates\[3\].*a rate is compared with a percentage/);
  });
});
