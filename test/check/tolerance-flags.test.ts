import { describe, expect, it } from 'vitest';
import { parseTolerances } from '../../src/check/tolerance-options.js';
import { ConfigError } from '../../src/core/config-error.js';

/* `--tolerance name=value`: a known name and a finite number the schema accepts, or an error naming it. */

function messages(flags: string[]): string[] {
  try {
    parseTolerances(flags);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const issues = (err as ConfigError).issues;
    for (const i of issues) expect(i.where).toBe('--tolerance');
    return issues.map((i) => i.message);
  }
  return [];
}

describe('parseTolerances', () => {
  it('takes a flag with spaces around it, and returns only what was given', () => {
    expect(parseTolerances([' clockSkewMs=0 '])).toEqual({ clockSkewMs: 0 });
    expect(parseTolerances([])).toEqual({});
  });

  it('wants the whole flag to be name=value', () => {
    expect(messages(['x clockSkewMs=5'])).toEqual([
      expect.stringMatching(/^"x clockSkewMs=5": expected name=value/),
    ]);
    expect(messages(['clockSkewMs='])).toHaveLength(1);
    expect(messages(['=5'])).toHaveLength(1);
    expect(messages(['clockSkewMs5'])).toHaveLength(1);
    expect(messages(['clockSkewMs=5\nrateOverrun=1'])).toHaveLength(1);
  });

  it('wants a finite number', () => {
    expect(messages(['clockSkewMs=Infinity', 'clockSkewMs=5 ms'])).toEqual([
      '"clockSkewMs=Infinity": the value must be a number',
      '"clockSkewMs=5 ms": the value must be a number',
    ]);
  });

  it('holds each value to the schema, naming the tolerance', () => {
    expect(messages(['clockSkewMs=-1', 'rateUnderrun=1.5'])).toEqual([
      expect.stringMatching(/^clockSkewMs: /),
      expect.stringMatching(/^rateUnderrun: /),
    ]);
    expect(parseTolerances(['rateUnderrun=1'])).toEqual({ rateUnderrun: 1 });
  });
});
