import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { parseThresholds } from '../../src/report/threshold.js';

/*
 * The threshold parser at its edges (issue 39: what the documented forms let through): each
 * aggregation's spelling, tags written loosely or wrongly, violation globs, and the message each
 * refusal gives.
 */

function messageOf(expression: string): string {
  try {
    parseThresholds([expression]);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => i.message).join('\n');
    throw err;
  }
  throw new Error(`"${expression}" parsed`);
}

describe('aggregations', () => {
  it('reads p100, a fractional percentile to any depth, min and avg', () => {
    const [p100, deep, min, avg] = parseThresholds([
      'p100(run) < 1s',
      'p99.99(run) < 1s',
      'min(run) < 1s',
      'avg(run) < 1s',
    ]);
    expect(p100?.aggregation).toEqual({ kind: 'percentile', percentile: 100, label: 'p100' });
    expect(deep?.aggregation).toEqual({ kind: 'percentile', percentile: 99.99, label: 'p99.99' });
    expect(min?.aggregation).toEqual({ kind: 'percentile', percentile: 0, label: 'min' });
    expect(avg?.aggregation).toEqual({ kind: 'percentile', percentile: -1, label: 'mean' });
  });

  it('refuses a percentile with anything after its number', () => {
    expect(messageOf('p99x(run) < 1s')).toMatch(/unknown aggregation "p99x"/);
  });

  it('names every aggregation a metric takes when it is given another', () => {
    expect(messageOf('rate(run) < 1%')).toMatch(
      /rate\(\) does not apply to "run"; use pNN\/max\/min\/mean, count, rps$/,
    );
  });
});

describe('tags', () => {
  it('takes spaces around names and values, quotes, and an empty pair of braces', () => {
    const [spaced, empty] = parseThresholds(['count(status{ status = "5xx" }) == 1', 'count(status{ }) > 0']);
    expect(spaced?.tags).toEqual({ status: '5xx' });
    expect(empty?.tags).toEqual({});
  });

  it.each([
    ['count(status{status}) == 1', 'malformed tag "status"'],
    ['count(status{ status }) == 1', 'malformed tag "status"'],
    ['count(status{status=}) == 1', 'malformed tag "status="'],
    ['count(status{=5xx}) == 1', 'malformed tag "=5xx"'],
    ['count(status{!status=5xx}) == 1', 'malformed tag "!status=5xx"'],
  ])('refuses %s', (expression, why) => {
    expect(messageOf(expression)).toContain(why);
  });
});

describe('violation globs', () => {
  it.each(['count(violation:) == 0', 'count(violation:!x) == 0', 'count(violation:x!) == 0'])(
    'refuses %s',
    (expression) => {
      expect(messageOf(expression)).toMatch(/needs a check id or glob after "violation:"/);
    },
  );
});

describe('values', () => {
  it('a plain rate is a fraction below 1; 1 and more are ambiguous, and refused', () => {
    expect(parseThresholds(['rate(429) <= 0.99'])[0]?.target).toBe(0.99);
    expect(messageOf('rate(429) <= 1')).toMatch(/fraction between 0 and 1/);
    expect(messageOf('rate(429) <= 1.5')).toMatch(/fraction between 0 and 1/);
  });

  it('names what takes no unit: a requests-per-second value, a count', () => {
    expect(messageOf('rps(requests) > 5ms')).toMatch(
      /^"rps\(requests\) > 5ms": a requests-per-second value takes no unit, not "ms"$/,
    );
    expect(messageOf('count(requests) > 5ms')).toMatch(/a count takes no unit, not "ms"$/);
  });

  it('says which side it cannot read, trimmed, and the expression trimmed', () => {
    expect(messageOf('  p99 run   < 1s ')).toBe(
      '"p99 run   < 1s": cannot read "p99 run"; write e.g. p99(run) or count(violations)',
    );
    expect(messageOf('p99(run) <   fast  ')).toMatch(/cannot read the value "fast"/);
  });
});

describe('a whole-run threshold', () => {
  it('carries no window and no delay', () => {
    const [t] = parseThresholds([{ expression: 'p99(run) < 1s', abortOnFail: true }]);
    expect(t).not.toHaveProperty('windowS');
    expect(t).not.toHaveProperty('delayAbortEvalMs');
  });
});
