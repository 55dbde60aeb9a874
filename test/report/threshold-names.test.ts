import { describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/check/catalog.js';
import { ConfigError } from '../../src/core/config-error.js';
import { parseThresholds, type ThresholdSource } from '../../src/report/threshold.js';

/*
 * Issue 47 item 3: a threshold over a check id that does not exist counted nothing and passed
 * (`✓ count(violation:nosuch) == 0`), and `rate(429) < 1` passed as "below 100 %". Both are
 * configuration errors now, with what was probably meant.
 */

function messagesOf(sources: readonly (string | ThresholdSource)[]): string[] {
  try {
    parseThresholds(sources, { checkIds: CHECK_IDS });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues.map((i) => `${i.where}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('violation names are checked against the check ids', () => {
  it('an unknown id is refused, with the nearest id', () => {
    expect(
      messagesOf([{ expression: 'rate(violation:transition.bakwards) < 1%', where: '--threshold' }]),
    ).toEqual([
      '--threshold: "rate(violation:transition.bakwards) < 1%": "violation:transition.bakwards" matches no check id; did you mean "violation:transition.backwards"? (docs/reference/checks.md lists the ids)',
    ]);
  });

  it('an id nothing is close to is refused without a guess', () => {
    expect(messagesOf(['count(violation:nosuch) == 0'])[0]).toMatch(
      /"violation:nosuch" matches no check id \(docs/,
    );
  });

  it('a glob that matches no id is refused, with the nearest family', () => {
    expect(messagesOf(['count(violation:transtion.*) == 0'])[0]).toMatch(
      /"violation:transtion\.\*" matches no check id; did you mean "violation:transition\.\*"\?/,
    );
  });

  it('every bad name is reported at once', () => {
    expect(messagesOf(['count(violation:nosuch) == 0', 'count(violation:alsonot.*) == 0'])).toHaveLength(2);
  });

  it('real ids and globs that match one pass', () => {
    const parsed = parseThresholds(
      ['count(violation:transition.*) == 0', 'count(violation:server.error) == 0', 'count(violation:*) == 0'],
      { checkIds: CHECK_IDS },
    );
    expect(parsed.map((t) => t.metric)).toEqual([
      'violation:transition.*',
      'violation:server.error',
      'violation:*',
    ]);
  });

  it('without the ids (a threshold read back from a stored summary) the name is not judged', () => {
    expect(parseThresholds(['count(violation:retired.id) == 0'])[0]?.metric).toBe('violation:retired.id');
  });
});

describe('a bare rate of 1 or more is ambiguous', () => {
  it('is refused with both readings', () => {
    expect(messagesOf([{ expression: 'rate(429) < 1', where: '--threshold' }])).toEqual([
      '--threshold: "rate(429) < 1": a plain rate is a fraction between 0 and 1, and 1 is ambiguous: write "1%" (1 percent) or "100%" (all of them, the fraction 1)',
    ]);
    expect(messagesOf(['rate(errors) <= 5'])[0]).toMatch(/5 is ambiguous: write "5%" \(5 percent\)$/);
  });

  it('a percentage or a fraction below 1 is read as written', () => {
    const [a, b, c] = parseThresholds(['rate(429) < 1%', 'rate(429) < 0.5', 'rate(429) < 100%']);
    expect([a?.target, b?.target, c?.target]).toEqual([0.01, 0.5, 1]);
  });

  it('a stored threshold keeps the reading it had when it was written', () => {
    expect(parseThresholds([{ expression: 'rate(429) < 1', stored: true }])[0]?.target).toBe(1);
  });
});
