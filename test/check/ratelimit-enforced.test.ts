import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { rateLimitCheck } from '../../src/check/checks/ratelimit-check.js';
import { ex } from './records.js';
import { judgeRates, ok, refused404, spread, throttled, times } from './ratelimit-records.js';

/*
 * `ratelimit.not-enforced` on the edges of its window and tolerance, the observed ceilings, and
 * the check's ids (issue 39). Cancel: more than 106 accepted in a window (100 × 1.05 + 1) fires.
 */

describe('ratelimit.not-enforced: the count', () => {
  it('takes 101 accepted with no overrun tolerated, and fires at 102', () => {
    const tolerances = { rateOverrun: 0 };
    const at = (n: number) =>
      judgeRates(
        times(n, () => ok(0)),
        { tolerances },
      );
    expect(at(101).found).toEqual({});
    expect(at(101).judged['ratelimit.not-enforced']).toBe(101);
    expect(at(102).found).toEqual({ 'ratelimit.not-enforced': 1 });
  });

  it('counts an accepted request sent 9.75 s before, and not one sent a millisecond earlier', () => {
    // Answered within the millisecond: the last request's answer does not move the window.
    const stream = (first: number) => [ok(first, 0), ...times(106, () => ok(10_000, 0))];
    expect(judgeRates(stream(250)).found).toEqual({ 'ratelimit.not-enforced': 1 });
    expect(judgeRates(stream(249)).found).toEqual({});
  });

  it('never fires at a steady rate under the limit, however long it lasts', () => {
    const out = judgeRates(spread(300, 0, 50_000, (at) => ok(at)));
    expect(out.found).toEqual({});
    expect(out.judged['ratelimit.not-enforced']).toBe(300);
    expect(out.ceilings[0]?.maxAcceptedPerWindow).toBe(59);
  });

  it('counts accepted requests only, when older requests leave the window', () => {
    const stream = [...times(50, () => refused404(0)), ...times(107, () => ok(12_000))];
    expect(judgeRates(stream).found).toEqual({ 'ratelimit.not-enforced': 1 });
  });

  it('says how many, when, and the effective limit, citing the kept accepted request nearest before', () => {
    // One accepted request is kept per second of send time, the first that came: in the second of
    // the finding a 404 comes first, so the evidence is the first accepted one after it.
    const before = ok(500);
    const first = refused404(1000, 0);
    const burst = spread(107, 1001, 1536, (at) => ok(at));
    const [g] = judgeRates([before, first, ...burst]).groups;
    expect(g?.count).toBe(1);
    expect(g?.examples[0]?.message).toBe(
      'cancel accepted 107 requests (2xx) within the 10 s before 1526 ms; the effective limit is 100. The evidence is one of them',
    );
    expect(g?.examples[0]?.evidence.seq).toBe(burst[0]?.seq);
  });

  it('keeps evidence in every second, the one before time 0 (the preflight) too', () => {
    const burst = spread(107, -1000, -465, (at) => ok(at));
    const [g] = judgeRates(burst).groups;
    expect(g?.count).toBe(1);
    expect(g?.examples[0]?.evidence.seq).toBe(burst[0]?.seq);
  });

  it('takes an edge as wide as the window: each accepted request is then alone in its window', () => {
    const out = judgeRates([ok(0, 0), ok(1, 0), ok(2, 0)], { tolerances: { windowEdgeMs: 10_001 } });
    expect(out.ceilings[0]?.maxAcceptedPerWindow).toBe(1);
  });

  it('fires again 10 s after its last finding, not sooner', () => {
    const burst = (at: number) => times(107, () => ok(at, 0));
    expect(judgeRates([...burst(0), ...burst(10_000)]).found).toEqual({ 'ratelimit.not-enforced': 2 });
    expect(judgeRates([...burst(0), ...burst(9999)]).found).toEqual({ 'ratelimit.not-enforced': 1 });
  });
});

describe('ratelimit.not-enforced: slow answers', () => {
  // Each answer takes 2 s, so the service may have counted it up to 2 s after it was sent: a
  // request sent more than 7.75 s before another may lie a window away from it.
  const late = (n: number) => times(n, () => ok(10_000, 2000));

  it('leaves out accepted requests sent more than a window before the judged answer ended', () => {
    expect(judgeRates([...times(10, () => ok(2000)), ...late(106)]).found).toEqual({});
    expect(judgeRates([...times(10, () => ok(2000)), ...late(107)]).found).toEqual({
      'ratelimit.not-enforced': 1,
    });
  });

  it('counts one sent exactly a window less the edge before that end', () => {
    expect(judgeRates([ok(2250), ...late(106)]).found).toEqual({ 'ratelimit.not-enforced': 1 });
  });

  it('leaves out only accepted ones: a 404 sent that early takes nothing off', () => {
    const early = [...times(10, () => ok(2000)), ...times(5, () => refused404(2000))];
    expect(judgeRates([...early, ...late(107)]).found).toEqual({ 'ratelimit.not-enforced': 1 });
  });
});

describe('ratelimit.not-enforced: the effective limit without requestsPerWorker', () => {
  const burst = times(107, () => ok(5000));
  const health = (running: number) =>
    ex('health', 0, 200, { workers: { idle: 0, running }, jobs: { inQueue: 0, inProgress: running } });

  it('is judged on the base limit while no worker runs', () => {
    const out = judgeRates([health(0), ...burst], { run: { requestsPerWorker: undefined } });
    expect(out.found).toEqual({ 'ratelimit.not-enforced': 1 });
    expect(out.judged['ratelimit.not-enforced']).toBe(107);
  });

  it('is not judged once a worker runs: the dynamic limit is unknown', () => {
    const out = judgeRates([health(1), ...burst], { run: { requestsPerWorker: undefined } });
    expect(out.found).toEqual({});
    expect(out.judged['ratelimit.not-enforced']).toBe(0);
  });
});

describe('the observed ceilings', () => {
  it('holds per operation its limit, cap, counts and the most accepted in a window and in flight', () => {
    const stream = [
      ok(0, 100),
      ok(50, 100),
      // Sent as the first one's answer ended: two in flight, not three.
      ok(100, 100),
      refused404(300),
      ex('cancel', 310, 300, undefined, { took: 1 }),
      ex('cancel', 320, 101, undefined, { took: 1 }),
      throttled(400),
      ok(10_200, 1),
      ex('purge-queue', 500, 200, undefined, { took: 1 }),
    ];
    expect(judgeRates(stream).ceilings).toStrictEqual([
      {
        op: 'cancel',
        limit: 100,
        concurrent: 20,
        maxAcceptedPerWindow: 3,
        maxConcurrent: 2,
        accepted: 4,
        throttled: 1,
      },
      {
        op: 'purge-queue',
        limit: 2,
        maxAcceptedPerWindow: 1,
        maxConcurrent: 1,
        accepted: 1,
        throttled: 0,
      },
    ]);
  });

  it('names every ratelimit id of the catalog as its own', () => {
    const catalog = CHECK_CATALOG.map((c) => c.id).filter((id) => id.startsWith('ratelimit.'));
    expect([...rateLimitCheck().ids].sort()).toEqual(catalog.sort());
  });
});

describe('ratelimit.retry-after', () => {
  const one = (retryAfter: string, extra: { took?: number } = {}) =>
    judgeRates([throttled(0, { retryAfter, ...extra })]);

  it('takes a Retry-After up to 11 s (a window and the clock skew), not 12', () => {
    expect(one('11').found).toEqual({ 'ratelimit.early': 1 });
    expect(one('12').found).toEqual({ 'ratelimit.early': 1, 'ratelimit.retry-after': 1 });
    expect(one('12').judged['ratelimit.retry-after']).toBe(1);
  });

  it('reads an HTTP date from the wall time of the answer', () => {
    // Answered a minute into the run: 5 s later is fine, 20 s is not.
    const startedAtMs = 1_700_000_000_000;
    const date = (afterMs: number) => new Date(startedAtMs + 60_000 + afterMs).toUTCString();
    const at = (afterMs: number) =>
      judgeRates([throttled(59_000, { retryAfter: date(afterMs), took: 1000 })]).found[
        'ratelimit.retry-after'
      ];
    expect(at(5000)).toBeUndefined();
    expect(at(20_000)).toBe(1);
  });

  it('judges an unreadable one once, and says so', () => {
    const out = one('soon');
    expect(out.judged['ratelimit.retry-after']).toBe(1);
    expect(out.groups.find((g) => g.id === 'ratelimit.retry-after')?.examples[0]?.message).toBe(
      'Retry-After: soon is neither seconds nor an HTTP date (IMF-fixdate)',
    );
    // Date.parse reads these as dates long past; they are no Retry-After.
    for (const retryAfter of ['1.5', '-1', 'in 5'])
      expect(one(retryAfter).found['ratelimit.retry-after'], retryAfter).toBe(1);
    expect(
      judgeRates([throttled(0, { retryAfter: '' })]).groups.find((g) => g.id === 'ratelimit.retry-after')
        ?.examples[0]?.message,
    ).toBe('cancel answered 429 without a Retry-After header');
  });

  it('allows a long one while the concurrency cap is full: 18 in flight, not 17', () => {
    const at = (n: number) =>
      judgeRates([...times(n, () => ok(0, 5000)), throttled(100, { retryAfter: '30' })]).found[
        'ratelimit.retry-after'
      ];
    expect(at(18)).toBeUndefined();
    expect(at(17)).toBe(1);
  });

  it('never allows a long one where there is no cap', () => {
    const out = judgeRates([throttled(100, { op: 'purge-queue', retryAfter: '30' })]);
    expect(out.found['ratelimit.retry-after']).toBe(1);
  });
});
