import { describe, expect, it } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, webhook } from './records.js';
import { judgeRates, ok, refused404, spread, throttled, times } from './ratelimit-records.js';

/*
 * `ratelimit.early` on the edges of its tolerances (issue 39): a 429 of cancel is early while
 * fewer than 94 requests can have reached the service in its window and fewer than 18 can have
 * been in flight.
 */

describe('ratelimit.early: requests in the window', () => {
  it('is early with 93 requests in the window and fair with 94', () => {
    const early = judgeRates([...spread(93, 0, 4650, (at) => ok(at)), throttled(5000)]);
    expect(early.found).toEqual({ 'ratelimit.early': 1 });
    expect(early.judged).toEqual({
      'ratelimit.early': 1,
      'ratelimit.not-enforced': 93,
      'ratelimit.retry-after': 1,
    });
    expect(judgeRates([...spread(94, 0, 4700, (at) => ok(at)), throttled(5000)]).found).toEqual({});
  });

  it('counts a request sent while the 429 was on its way, but not one sent as its answer came back', () => {
    const before = spread(93, 0, 4650, (at) => ok(at));
    const answeredAt = throttled(5000, { took: 2 });
    expect(judgeRates([...before, answeredAt, refused404(5002)]).found).toEqual({ 'ratelimit.early': 1 });
    expect(judgeRates([...before, answeredAt, refused404(5001)]).found).toEqual({});
  });

  it('counts a request sent 10.25 s before the 429 less one millisecond, and not one sent 10.25 s before', () => {
    // Answered within the millisecond: nothing sent then can still be on its way into the window.
    const at = (sentAt: number) => [...times(94, () => refused404(sentAt, 0)), throttled(20_000)];
    expect(judgeRates(at(9751)).found).toEqual({});
    expect(judgeRates(at(9750)).found).toEqual({ 'ratelimit.early': 1 });
  });

  it('counts a request sent before the window while its answer ends inside it, and only until then', () => {
    // Sent at 8 s: out of the window of a 429 at 20 s (which opens at 9.75 s) unless it ended later.
    // A request judged at 19 s saw it still in flight in its own window.
    const stream = (took: number): JobstormRecord[] => [
      ...times(94, () => refused404(8000, took)),
      refused404(19_000),
      throttled(20_000),
    ];
    expect(judgeRates(stream(1751)).found).toEqual({});
    expect(judgeRates(stream(1750)).found).toEqual({ 'ratelimit.early': 1 });
  });

  it('forgets a request that lingered into one window once a later window opens after its answer', () => {
    const lingering = times(94, () => refused404(8000, 3000));
    expect(judgeRates([...lingering, refused404(19_000), throttled(20_000)]).found).toEqual({});
    expect(judgeRates([...lingering, refused404(19_000), throttled(25_000)]).found).toEqual({
      'ratelimit.early': 1,
    });
  });

  it('forgets requests sent long before its window, however many came between', () => {
    const stream = [
      ...times(94, () => refused404(0)),
      ...times(94, () => refused404(12_000)),
      throttled(25_000),
    ];
    expect(judgeRates(stream).found).toEqual({ 'ratelimit.early': 1 });
  });

  it('does not count requests that never reached the service: refused, unresolved, or a failed handshake', () => {
    const recent = spread(40, 6000, 10_000, (at) => ok(at));
    const unanswered = (kind: 'refused' | 'dns' | 'tls' | 'reset') =>
      Array.from({ length: 60 }, (_, i) =>
        ex('cancel', 5000 + i * 10, undefined, undefined, { error: { kind }, took: 20_000 }),
      );
    for (const kind of ['refused', 'dns', 'tls'] as const)
      expect(judgeRates([...unanswered(kind), ...recent, throttled(11_500)]).found, kind).toEqual({
        'ratelimit.early': 1,
      });
    expect(judgeRates([...unanswered('reset'), ...recent, throttled(11_500)]).found).toEqual({});
  });

  it('does not count an exchange that has neither an answer nor an error (a hand-made stream)', () => {
    const bare = Array.from({ length: 60 }, (_, i) => ex('cancel', 5000 + i * 10, undefined));
    const recent = spread(40, 6000, 10_000, (at) => ok(at));
    expect(judgeRates([...bare, ...recent, throttled(11_500)]).found).toEqual({ 'ratelimit.early': 1 });
  });
});

describe('ratelimit.early: requests in flight', () => {
  const inFlight = (n: number) => times(n, () => ok(0, 5000));

  it('is early with 17 in flight and fair with 18 (cap 20)', () => {
    expect(judgeRates([...inFlight(17), throttled(100)]).found).toEqual({ 'ratelimit.early': 1 });
    expect(judgeRates([...inFlight(18), throttled(100)]).found).toEqual({});
  });

  it('counts requests accepted while the 429 was on its way as in flight, not ones answered otherwise', () => {
    const during = spread(5, 200, 300, (at) => refused404(at));
    expect(judgeRates([...inFlight(17), throttled(100, { took: 500 }), ...during]).found).toEqual({
      'ratelimit.early': 1,
    });
    const accepted = spread(1, 200, 300, (at) => ok(at));
    expect(judgeRates([...inFlight(17), throttled(100, { took: 500 }), ...accepted]).found).toEqual({});
  });

  it('judges purge-queue, which has no cap, on its window alone', () => {
    const out = judgeRates([throttled(100, { op: 'purge-queue', retryAfter: '1' })]);
    expect(out.found).toEqual({ 'ratelimit.early': 1 });
    expect(out.groups[0]?.examples[0]?.message).toBe(
      'purge-queue got 429 with at most 0 requests that can have reached the service in its 10 s window (effective limit 2) and at most 0 in flight',
    );
  });
});

describe('ratelimit.early: the finding', () => {
  const stream = [...spread(3, 0, 300, (at) => ok(at, 1000)), throttled(500)];

  it('names the window, the effective limit, the requests in flight and the cap', () => {
    const [g] = judgeRates(stream).groups;
    expect(g?.severity).toBe('error');
    expect(g?.examples[0]?.message).toBe(
      'cancel got 429 with at most 3 requests that can have reached the service in its 10 s window (effective limit 100) and at most 3 in flight (cap 20)',
    );
    expect(g?.examples[0]?.evidence.seq).toBe(stream[3]?.seq);
  });

  it('is a warning unless the run has the endpoint to itself', () => {
    const severity = (run: { ownsEndpoint: boolean; exclusiveEndpoint?: boolean }) =>
      judgeRates(stream, { run }).groups[0]?.severity;
    expect(severity({ ownsEndpoint: true })).toBe('error');
    expect(severity({ ownsEndpoint: false })).toBe('warning');
    expect(severity({ ownsEndpoint: false, exclusiveEndpoint: true })).toBe('error');
    expect(severity({ ownsEndpoint: true, exclusiveEndpoint: false })).toBe('warning');
    expect(judgeRates(stream, { run: { ownsEndpoint: false } }).groups[0]?.examples[0]?.message).toMatch(
      /\(cap 20\); the limit may be shared with other clients of this endpoint \(run with --exclusive-endpoint if it is not\)$/,
    );
  });
});

describe('ratelimit.early: when a 429 is judged', () => {
  // 93 requests and a 429 at 20 s: early unless one more request sent before it is in its window.
  const before = spread(93, 12_000, 19_000, (at) => ok(at));
  const x = throttled(20_000);

  it('waits for answers that end after the 429', () => {
    const slow = refused404(19_999, 100);
    expect(judgeRates([...before, x, slow]).found).toEqual({});
  });

  it('waits for them after a webhook delivery too', () => {
    const slow = refused404(19_999, 100);
    expect(judgeRates([webhook(0, 'w', 200, {}), ...before, x, slow]).found).toEqual({});
  });

  it('judges a request once the latest answer ended 35 s after it was sent, not before', () => {
    // The answer that settles the 429, and one sent before the 429 that ends after it.
    const settles = refused404(50_000, 5000);
    const late = refused404(19_999, 35_002);
    expect(judgeRates([...before, x, settles, late]).found).toEqual({ 'ratelimit.early': 1 });
    const almost = refused404(50_000, 4999);
    expect(judgeRates([...before, x, almost, late]).found).toEqual({});
  });

  it('keeps every request a later window can still count after judging those before it', () => {
    // 900 answered requests in the first 0.18 s, judged once a request of 10.4 s settles; 1000 more
    // at 20 s fill the log past its first size before the 429 of 10.6 s is judged: the 429 sees
    // only the request of 10.4 s in its window.
    const first = spread(900, 0, 180, (at) => refused404(at));
    const settlesFirst = refused404(10_400, 35_000);
    const later = spread(1000, 20_000, 20_100, (at) => refused404(at));
    const settles429 = refused404(30_000, 15_600);
    const out = judgeRates([...first, settlesFirst, ...later, throttled(10_600), settles429]);
    expect(out.found).toEqual({ 'ratelimit.early': 1 });
    expect(out.groups[0]?.examples[0]?.message).toMatch(/^cancel got 429 with at most 1 requests/);
  });
});
