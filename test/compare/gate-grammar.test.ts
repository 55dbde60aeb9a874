import { describe, expect, it } from 'vitest';
import { parseGates, type Gate } from '../../src/compare/gate.js';
import { ConfigError } from '../../src/core/config-error.js';

/* The gate grammar's edges (issue 39: survivors of the mutation run in src/compare/gate.ts). */
function one(expression: string): Gate {
  const [g] = parseGates([{ expression, where: '--gate' }]);
  if (!g) throw new Error('no gate');
  return g;
}

function problem(expression: string): string {
  try {
    parseGates([{ expression, where: '--gate' }]);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.where}: ${i.message}`).join('\n');
    throw err;
  }
  throw new Error(`"${expression}" parsed`);
}

describe('gate grammar, edges', () => {
  it('trims the expression and the metric inside it', () => {
    const g = one('  delta( p99(run) ) < 10%  ');
    expect(g.expression).toBe('delta( p99(run) ) < 10%');
    expect(g.metric.expression).toBe('p99(run)');
  });

  it('an unknown wrapper is named as such, even when its inside reads', () => {
    expect(problem('change(p99(run)) < 10%')).toMatch(
      /^--gate: gate "change\(p99\(run\)\) < 10%": a gate compares two runs/,
    );
  });

  it('an unreadable limit is an error that says so, quoting the gate trimmed', () => {
    expect(problem(' delta(p99(run)) < soon ')).toBe(
      '--gate: gate "delta(p99(run)) < soon": cannot read the limit "soon"; write e.g. 10%, 250ms or 0',
    );
  });

  it('new() and vanished() count ids: a percentage is no limit for them', () => {
    expect(problem('new(violations) < 10%')).toMatch(/a count takes no unit, not "%"/);
  });

  it('a change of a fraction has no range: more than 1 is a limit as good as any', () => {
    expect(one('delta(rate(429)) < 1.5')).toMatchObject({ target: 1.5, relative: false, unit: 'ratio' });
  });

  it('delta() of the violations count reads', () => {
    expect(one('delta(count(violation:transition.*)) < 1')).toMatchObject({
      kind: 'delta',
      target: 1,
      unit: 'count',
    });
  });
});
