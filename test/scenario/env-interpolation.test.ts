import { describe, expect, it } from 'vitest';
import { interpolateEnv, interpolateStrings } from '../../src/scenario/env-interpolation.js';

describe('${ENV} interpolation', () => {
  const env = { HOST: 'example.com', EMPTY: '', RATE: '50' };
  it.each([
    ['url: https://${HOST}/v2', 'url: https://example.com/v2'],
    ['rate: ${RATE:-10}', 'rate: 50'],
    ['rate: ${UNSET:-10}', 'rate: 10'],
    ['name: ${EMPTY:-fallback}', 'name: fallback'],
    ['name: "${EMPTY}"', 'name: ""'],
    ['literal: $${HOST}', 'literal: ${HOST}'],
    ['price: $5 and {braces}', 'price: $5 and {braces}'],
  ])('%s', (text, out) => {
    const r = interpolateEnv(text, env);
    expect(r.problems).toEqual([]);
    expect(r.text).toBe(out);
  });

  it('names every unset variable at its offset, and rejects malformed references', () => {
    const r = interpolateEnv('a: ${ONE}\nb: ${TWO}\nc: ${not valid}\n', {});
    expect(r.problems).toEqual([
      { offset: 3, message: 'environment variable ONE is not set (write ${ONE:-default} to give a default)' },
      {
        offset: 13,
        message: 'environment variable TWO is not set (write ${TWO:-default} to give a default)',
      },
      {
        offset: 23,
        message:
          '${not valid} is not a variable reference; write ${NAME} or ${NAME:-default} (or $${ for a literal)',
      },
    ]);
  });

  it('leaves comment lines alone when told which prefix starts a comment', () => {
    const text = '# set ${TARGET} first\n  # ${ALSO}\nname: x\n';
    expect(interpolateEnv(text, {}, { commentPrefix: '#' }).problems).toEqual([]);
    expect(interpolateEnv(text, {}).problems).toHaveLength(2);
  });

  it('maps offsets in the interpolated text back to the original', () => {
    const original = 'a: ${LONG_VARIABLE}\nb: x\n';
    const r = interpolateEnv(original, { LONG_VARIABLE: '1' });
    expect(r.text).toBe('a: 1\nb: x\n');
    const xAt = r.text.indexOf('x');
    expect(original[r.toOriginal(xAt)]).toBe('x');
    expect(r.toOriginal(r.text.indexOf('1'))).toBe(original.indexOf('${'));
    expect(r.toOriginal(0)).toBe(0);
  });

  it('interpolates the strings of a module export, reporting by key path', () => {
    const r = interpolateStrings({ name: 'n-${A}', list: ['${B}', 3], nested: { c: '${C:-z}' } }, { A: 'a' });
    expect(r.value).toEqual({ name: 'n-a', list: ['', 3], nested: { c: 'z' } });
    expect(r.problems).toEqual([
      {
        path: ['list', 0],
        message: 'environment variable B is not set (write ${B:-default} to give a default)',
      },
    ]);
  });
});
