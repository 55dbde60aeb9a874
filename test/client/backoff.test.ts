import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs } from '../../src/client/backoff.js';

describe('retryAfterMs', () => {
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['1.5', 1500],
    [undefined, undefined],
    ['soon', undefined],
  ])('reads %j as %j ms', (value, ms) => {
    expect(retryAfterMs(value)).toBe(ms);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });
});

describe('backoffDelay', () => {
  const policy = { attempts: 10, baseMs: 100, maxMs: 1000 };

  it('doubles the ceiling per retry, caps it, and jitters below it', () => {
    const top = { ...policy, random: () => 0.999999 };
    expect([1, 2, 3, 4, 5, 6].map((n) => Math.round(backoffDelay(top, n)))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(backoffDelay({ ...policy, random: () => 0 }, 3)).toBe(0);
    expect(backoffDelay({ ...policy, random: () => 0.25 }, 2)).toBe(50);
  });

  it('lets Retry-After win, up to maxMs', () => {
    expect(backoffDelay({ ...policy, random: () => 0 }, 1, '0.5')).toBe(500);
    expect(backoffDelay(policy, 1, '30')).toBe(1000);
  });
});
