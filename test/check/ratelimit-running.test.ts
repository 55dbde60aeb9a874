import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../src/check/checks/ratelimit-check.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { ex } from './records.js';
import { health, judgeRates, ok, refused404, spread, throttled, times } from './ratelimit-records.js';

/*
 * The dynamic limit (SPEC "Dynamic rate limiting") read from /health samples (issue 39): the
 * effective limit of a window is the base one or running workers × 10 (the run's
 * requestsPerWorker), whichever is higher. `ratelimit.not-enforced` takes the most workers that
 * ran in the window, `ratelimit.early` the fewest; a sample counts from when it was sent.
 *
 * With 20 workers the limit of cancel is 200: 150 accepted is enforcing it, and a 429 after 150
 * requests is early; with none it is 100, and it is the other way round.
 */

const accepted150 = (at: number) => times(150, () => ok(at));
/** 150 requests answered 404 before `at`, and a 429 at `at`. */
const throttledAfter150 = (at: number) => [
  ...spread(150, at - 4000, at - 100, (t) => refused404(t)),
  throttled(at),
];

const notEnforced = (records: ExchangeRecord[]) => judgeRates(records).found['ratelimit.not-enforced'] ?? 0;
const early = (records: ExchangeRecord[]) => judgeRates(records).found['ratelimit.early'] ?? 0;

describe('the most workers in a window (not-enforced)', () => {
  it('takes the largest sample in the window, whatever came after', () => {
    const samples = [health(0, 0), health(3000, 20), health(10_000, 20)];
    expect(notEnforced([...samples, ...accepted150(5000)])).toBe(0);
    expect(notEnforced([health(0, 0), ...accepted150(5000)])).toBe(1);
  });

  it('counts the first sample after the request: a worker may have taken a job between the two', () => {
    // Found by the lifecycle fuzzer: purges accepted between a sample of no worker running and
    // one of a worker running were held to the base limit.
    expect(notEnforced([health(0, 0), health(6000, 20), ...accepted150(5000)])).toBe(0);
    // Only the first after: a later rise cannot have been in force at the request.
    expect(notEnforced([health(0, 0), health(6000, 0), health(7000, 20), ...accepted150(5000)])).toBe(1);
    // None after: the one in force stands (the run's last second is judged too).
    expect(notEnforced([health(0, 0), ...accepted150(5000)])).toBe(1);
  });

  it('counts a sample sent in the same millisecond as the request', () => {
    expect(notEnforced([health(0, 0), health(5000, 20), ...accepted150(5000)])).toBe(0);
  });

  it('counts the sample in force when the window opened, and none before it', () => {
    expect(notEnforced([health(0, 20), health(1000, 0), ...accepted150(20_000)])).toBe(1);
    // A sample sent exactly as the window opens: the one before it was still in force until then.
    expect(notEnforced([health(0, 20), health(5000, 0), ...accepted150(15_000)])).toBe(0);
  });

  it('keeps samples that answered out of order by send time', () => {
    // Of two samples sent at once, the one answered last is in force.
    expect(notEnforced([health(0, 20), health(0, 0), ...accepted150(15_000)])).toBe(1);
    expect(notEnforced([health(0, 0), health(0, 20), ...accepted150(15_000)])).toBe(0);
    expect(notEnforced([health(20_000, 20), health(3000, 0), ...accepted150(22_000)])).toBe(0);
  });

  it('reads only the running count of a /health reading', () => {
    const body = { workers: { idle: 0, running: 20 }, jobs: { inQueue: 0, inProgress: 20 } };
    const others = [
      ex('health', 0, 503, body),
      ex('status', 0, 200, body),
      ex('health', 0, 200),
      ex('health', 0, 200, { jobs: {} }),
      ex('health', 0, 200, { workers: { idle: 3 } }),
      // No usable reading: a count below zero, a gauge missing.
      ex('health', 0, 200, { ...body, jobs: { inQueue: -1, inProgress: 20 } }),
      ex('health', 0, 200, { ...body, jobs: { inProgress: 20 } }),
    ];
    expect(notEnforced([ex('health', 0, 200, body), ...accepted150(5000)])).toBe(0);
    expect(notEnforced([...others, ...accepted150(5000)])).toBe(1);
  });

  it('reads a sample between two judged requests that cover the same samples', () => {
    // Requests of /run judged first cover the samples of 1 s and 16 s; the sample of 6 s answers
    // after them, and the cancels of 13 s cover it.
    const samples = [health(0, 0), health(1000, 0), health(16_000, 0)];
    const runs = [ok(17_000, 1, 'run'), ex('run', 51_000, 404, undefined, { took: 1000 })];
    expect(notEnforced([...samples, ...runs, health(6000, 20), ...accepted150(13_000)])).toBe(0);
  });

  it('reads the samples of each request, when one bound of its window moves and the other does not', () => {
    // Same first sample, a later last one: 20 workers from 5 s.
    expect(
      notEnforced([
        health(0, 0),
        health(5000, 20),
        ...times(100, () => ok(3000)),
        ...times(50, () => ok(6000)),
      ]),
    ).toBe(0);
    // Same last sample, a later first one: none from 5 s.
    expect(notEnforced([health(0, 20), health(5000, 0), ok(9000), ...times(149, () => ok(16_000))])).toBe(1);
  });

  it('counts a sample of the preflight, before time 0', () => {
    expect(notEnforced([health(-500, 20), ...accepted150(5000)])).toBe(0);
  });

  it('holds every sample a window still to be judged can read, however many came', () => {
    // 600 samples in 3 s, 20 workers in the first 200.
    const samples = Array.from({ length: 600 }, (_, i) => health(i * 5, i < 200 ? 20 : 0));
    expect(notEnforced([...samples, ...accepted150(5000)])).toBe(0);
  });
});

describe('the fewest workers in a window (early)', () => {
  it('takes the smallest sample in the window and the first after the 429, none after: no bound', () => {
    const samples = [health(0, 20), health(15_000, 20), health(30_000, 20)];
    expect(early([...samples, ...throttledAfter150(10_000)])).toBe(1);
    expect(early([health(0, 20), health(5000, 20), health(11_000, 20), ...throttledAfter150(10_000)])).toBe(1);
    // A sample is one instant: the count may have dropped before the 429 (found by the fuzzer).
    expect(early([health(0, 20), health(13_000, 0), ...throttledAfter150(10_000)])).toBe(0);
    expect(early([health(0, 20), health(5000, 20), ...throttledAfter150(10_000)])).toBe(0);
    expect(early([health(0, 20), health(5000, 0), health(11_000, 20), ...throttledAfter150(10_000)])).toBe(0);
  });

  it('takes away the jobs that may have ended between the sample in force and the next', () => {
    // Found by the fuzzer: a job failed as a purge went out, between two samples of workers running.
    // One purge accepted in the window: under the base limit (2) the 429 is due, under 20 workers' (200) early.
    const purges = [ok(1000, 1, 'purge-queue'), throttled(10_000, { op: 'purge-queue' })];
    const withFinished = (at: number, finished: number): ExchangeRecord =>
      ex('health', at, 200, {
        workers: { idle: 0, running: 20 },
        jobs: { inQueue: 0, inProgress: 20, completed: finished, failed: 0 },
      }, { took: 1 });
    expect(early([health(0, 20), health(11_000, 20), ...purges])).toBe(1);
    // 20 jobs finished between the samples: their workers may all have been free at the 429.
    expect(early([withFinished(0, 0), withFinished(11_000, 20), ...purges])).toBe(0);
    expect(early([withFinished(0, 0), withFinished(11_000, 0), ...purges])).toBe(1);
    // So may our 20 cancels sent between them have freed theirs.
    expect(early([health(0, 20), health(11_000, 20), ...times(20, () => ok(5000)), ...purges])).toBe(0);
    expect(early([health(0, 20), health(11_000, 20), ...times(19, () => ok(5000)), ...purges])).toBe(1);
  });

  it('keeps samples that answered out of order by send time', () => {
    expect(early([health(20_000, 20), health(3000, 20), ...throttledAfter150(5000)])).toBe(1);
    expect(early([health(20_000, 0), health(3000, 20), ...throttledAfter150(5000)])).toBe(0);
  });

  it('reads a sample between two judged 429s that cover the same samples', () => {
    const samples = [health(0, 20), health(1000, 20), health(16_000, 20)];
    const runs = [throttled(17_000, { op: 'run' }), ex('run', 51_000, 404, undefined, { took: 1000 })];
    const out = judgeRates([...samples, ...runs, health(6000, 0), ...throttledAfter150(13_000)]);
    // The 429 of /run is early: it had the window to itself.
    expect(out.groups.find((g) => g.id === 'ratelimit.early')?.examples.map((v) => v.op)).toEqual(['run']);
  });
});

describe('retryAfterSeconds', () => {
  it('reads whole seconds, spaces around them allowed', () => {
    expect(retryAfterSeconds('3', 0)).toBe(3);
    expect(retryAfterSeconds(' 120 ', 0)).toBe(120);
  });

  it('reads an HTTP date as the seconds left until it, none once it passed', () => {
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    expect(retryAfterSeconds(date, Date.parse(date) - 5000)).toBe(5);
    expect(retryAfterSeconds(date, Date.parse(date) + 5000)).toBe(0);
  });

  it('reads nothing else: no fractions, signs or words, and no date in a form senders must not use', () => {
    const others = [
      'soon',
      '5x',
      'x5',
      '1.5',
      '-1',
      'in 5',
      'Invalid Date',
      'Wednesday, 21-Oct-15 07:28:00 GMT',
      'Wed Oct 21 07:28:00 2015',
    ];
    for (const v of others) expect(retryAfterSeconds(v, 0), v).toBeUndefined();
  });
});
