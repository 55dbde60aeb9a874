import { describe, expect, it } from 'vitest';
import { expiryMs, isExpired, knownState, skipReasons } from '../../src/core/known-deviation.js';

describe('known deviations: expiry', () => {
  it('a date holds through its whole day in UTC; an instant is the moment it names', () => {
    expect(expiryMs('2026-03-31')).toBe(Date.UTC(2026, 3, 1));
    expect(expiryMs('2026-12-31')).toBe(Date.UTC(2027, 0, 1));
    expect(expiryMs('2026-03-31T18:00:00Z')).toBe(Date.UTC(2026, 2, 31, 18));
    expect(expiryMs('2026-03-31T18:00+02:00')).toBe(Date.UTC(2026, 2, 31, 16));
  });

  it('refuses what is not a date, or a time without its offset (it would mean another moment elsewhere)', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '31/03/2026', 'next week', '2026-03-31T18:00:00', ''])
      expect(expiryMs(bad), bad).toBeUndefined();
  });

  it('an entry has expired from the first instant after it holds', () => {
    const end = Date.UTC(2026, 0, 1);
    expect(isExpired({ expires: '2025-12-31' }, end - 1)).toBe(false);
    expect(isExpired({ expires: '2025-12-31' }, end)).toBe(true);
    expect(isExpired({}, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('what became of an entry', () => {
    expect(knownState(true, 3)).toBe('expired');
    expect(knownState(false, 3)).toBe('matched');
    expect(knownState(false, 0)).toBe('unseen');
  });
});

describe('skip lists', () => {
  it('expand globs over the ids given; the first item naming an id gives its reason', () => {
    const ids = ['auth.missing-key-accepted', 'auth.wrong-key-accepted', 'server.error'];
    const reasons = skipReasons(
      [
        { check: 'auth.wrong-key-accepted', why: 'first' },
        { check: 'auth.*', why: 'second' },
      ],
      ids,
    );
    expect(Object.fromEntries(reasons)).toEqual({
      'auth.wrong-key-accepted': 'first',
      'auth.missing-key-accepted': 'second',
    });
  });
});
