import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import type { SeriesData } from '../../src/metrics/metrics-data.js';
import { SecondSeries } from '../../src/metrics/second-series.js';
import { SparseHistogram } from '../../src/metrics/sparse-histogram.js';
import { ex } from '../check/records.js';

/*
 * The per-second series on records laid out by hand: which second a record lands in, what each
 * column counts, how busy time is split over seconds, and that merge and the JSON round trip keep
 * every figure (issue 39: the series had no test of its own).
 */

/** Wall clock of the records' time 0: second 1000 starts at record time 0. */
const ANCHOR = 1_000_000;

/** A /health body with every gauge the one reading needs, `running` and `inQueue` as given. */
const counts = (running: unknown, inQueue: unknown) => ({
  workers: { idle: 0, running },
  jobs: { inQueue, inProgress: 0 },
});

function health(at: number, body: unknown, status: number | undefined = 200): ExchangeRecord {
  return ex('health', at, status, body);
}

function seriesOf(records: readonly ExchangeRecord[]): SecondSeries {
  const s = new SecondSeries();
  for (const r of records) s.addExchange(ANCHOR, r);
  return s;
}

/** A decoded per-second histogram's count and p100, or undefined for an empty cell. */
function cell(encoded: string | undefined): { count: number; maxMs: number } | undefined {
  if (encoded === undefined || encoded === '') return undefined;
  const h = SparseHistogram.decode(encoded);
  return { count: h.count, maxMs: h.percentileMs(100) };
}

/** What a per-second histogram reports for a value: the top of its bucket. */
function bucketOf(ms: number): number {
  const h = new SparseHistogram();
  h.recordMs(ms);
  return h.percentileMs(100);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SecondSeries: what a second counts', () => {
  it('keys an exchange by the wall-clock second of its end, both sides of a second’s edge', () => {
    const s = seriesOf([
      ex('run', 990, 200, undefined, { took: 9 }), // ends at 999: second 1000
      ex('run', 990, 200, undefined, { took: 10 }), // ends at 1000: second 1001
    ]);
    expect(s.span()).toEqual({ first: 1000, last: 1001 });
    expect(s.second(1000)?.ops.get('run')?.requests).toBe(1);
    expect(s.second(1001)?.ops.get('run')?.requests).toBe(1);
    expect(s.toJSON().requests).toEqual([1, 1]);
  });

  it('counts requests, 429s and errors (no answer or 5xx) per second', () => {
    const d = seriesOf([
      ex('run', 0, 200),
      ex('run', 10, 429),
      ex('run', 20, 404),
      ex('run', 30, 500),
      ex('run', 40, 503),
      ex('run', 50, undefined, undefined, { error: { kind: 'reset' } }),
      ex('run', 60, 200, undefined, { error: { kind: 'timeout' } }),
      ex('run', 70, 302),
    ]).toJSON();
    expect(d.requests).toEqual([8]);
    expect(d.r429).toEqual([1]);
    expect(d.errors).toEqual([4]);
    expect(d.ops.run?.outcomes).toEqual({
      '2xx': [1],
      '429': [1],
      '4xx': [1],
      '5xx': [2],
      error: [2],
      other: [1],
    });
  });

  it('keeps each operation’s latency from the intended start, and the unanswered ones apart', () => {
    const s = seriesOf([
      ex('status', 0, 200, undefined, { intendedAt: -40, took: 10 }), // 50 ms from intended
      ex('status', 100, undefined, undefined, { error: { kind: 'timeout' }, took: 300 }),
      ex('run', 100, 500, undefined, { took: 20 }),
    ]);
    const status = s.second(1000)?.ops.get('status');
    expect(status?.requests).toBe(2);
    expect(status?.outcomes).toEqual({ '2xx': 1, error: 1 });
    expect(status?.latency.count).toBe(2);
    expect(status?.latency.percentileMs(50)).toBe(bucketOf(50));
    expect(status?.unanswered?.count).toBe(1);
    expect(status?.unanswered?.percentileMs(100)).toBe(bucketOf(300));
    // A 5xx was answered: it has a latency but is not unanswered.
    const run = s.second(1000)?.ops.get('run');
    expect(run?.outcomes).toEqual({ '5xx': 1 });
    expect(run?.unanswered).toBeUndefined();
    const d = s.toJSON();
    expect(Object.keys(d.ops)).toEqual(['run', 'status']);
    expect(d.ops.run).not.toHaveProperty('unanswered');
    expect(cell(d.ops.status?.unanswered?.[0])?.count).toBe(1);
    expect(cell(d.ops.status?.latency[0])?.count).toBe(2);
  });

  it('takes the highest workers and queue of the 2xx /health answers in a second', () => {
    const d = seriesOf([
      health(0, counts(2, 7)),
      health(100, counts(5, 3)),
      health(200, counts(3, 4)),
      // Not read: a refused answer, another operation, a gauge that is no number, one below zero.
      health(300, counts(50, 50), 503),
      ex('status', 400, 200, counts(60, 60)),
      health(1000, counts('x', 1)),
      health(1100, counts(1, -1)),
      health(2000, counts(0, 0)),
    ]).toJSON();
    expect(d.workers).toEqual([5, null, 0]);
    expect(d.queue).toEqual([7, null, 0]);
  });

  it('counts submissions, finals and drops by the second they happened in', () => {
    const s = new SecondSeries();
    s.addSubmitted(ANCHOR + 10);
    s.addSubmitted(ANCHOR + 999);
    s.addFinal(ANCHOR + 1000, 'COMPLETED');
    s.addFinal(ANCHOR + 1500, 'FAILED');
    s.addFinal(ANCHOR + 1500, 'CANCELLED');
    s.addFinal(ANCHOR + 2999, 'TIMED_OUT');
    s.addDropped(ANCHOR + 2000);
    const d = s.toJSON();
    expect(d).toMatchObject({
      startSec: 1000,
      length: 3,
      submitted: [2, 0, 0],
      dropped: [0, 0, 1],
      finals: { COMPLETED: [0, 1, 0], FAILED: [0, 1, 0], CANCELLED: [0, 1, 0], TIMED_OUT: [0, 0, 1] },
      requests: [0, 0, 0],
      workers: [null, null, null],
    });
    expect(s.second(1001)?.finals).toEqual({ COMPLETED: 1, FAILED: 1, CANCELLED: 1, TIMED_OUT: 0 });
    expect(s.second(1000)?.submitted).toBe(2);
    expect(s.second(1002)?.dropped).toBe(1);
  });
});

describe('SecondSeries: busy time', () => {
  it('splits a request’s time in flight over the seconds it spans, in whole µs', () => {
    // Sent at 500.25, answered at 2200: 499.75 ms in second 1000, 1000 in 1001, 200 in 1002.
    const d = seriesOf([ex('run', 500.25, 200, undefined, { took: 1699.75 })]).toJSON();
    expect(d.busyUs).toEqual([499_750, 1_000_000, 200_000]);
    expect(d.requests).toEqual([0, 0, 1]);
  });

  it('counts a request from its send, not from its intended start', () => {
    const d = seriesOf([ex('run', 900, 200, undefined, { intendedAt: 0, took: 200 })]).toJSON();
    expect(d.busyUs).toEqual([100_000, 100_000]);
  });

  it('adds nothing for a request that took no time, and no second for one ending on an edge', () => {
    const instant = seriesOf([ex('run', 100, 200, undefined, { took: 0 })]).toJSON();
    expect(instant.busyUs).toEqual([0]);
    // Ends exactly at 1000: nothing of it lies in second 1001, which holds its request only.
    const edge = seriesOf([ex('run', 600, 200, undefined, { took: 400 })]).toJSON();
    expect(edge.busyUs).toEqual([400_000, 0]);
    expect(edge.requests).toEqual([0, 1]);
  });

  it('adds no busy time for a request answered before its send (clock skew)', () => {
    const d = seriesOf([ex('run', 1500, 200, undefined, { took: -300 })]).toJSON();
    expect(d.busyUs).toEqual([0]);
    expect(d.requests).toEqual([1]);
    const across = seriesOf([ex('run', 2100, 200, undefined, { took: -300 })]).toJSON();
    expect(across.busyUs).toEqual([0]);
    expect(across.startSec).toBe(1001);
  });

  it('stops spreading a request’s time an hour after its send', () => {
    const hour = 3600;
    const d = seriesOf([ex('run', 0, 200, undefined, { took: (hour + 10) * 1000 })]).toJSON();
    expect(d.busyUs.slice(0, hour + 1).every((us) => us === 1_000_000)).toBe(true);
    expect(d.busyUs.slice(hour + 1)).toEqual(new Array<number>(10).fill(0));
    expect(d.length).toBe(hour + 11);
    expect(d.requests[hour + 10]).toBe(1);
  });
});

describe('SecondSeries: merge and round trip', () => {
  function shardA(): SecondSeries {
    const s = seriesOf([
      ex('run', 0, 200, undefined, { took: 10 }),
      ex('run', 20, 429, undefined, { took: 10 }),
      health(30, counts(2, 9)),
      ex('status', 1500, undefined, undefined, { error: { kind: 'reset' }, took: 40 }),
    ]);
    s.addSubmitted(ANCHOR + 5);
    s.addFinal(ANCHOR + 1600, 'COMPLETED');
    return s;
  }
  function shardB(): SecondSeries {
    const s = seriesOf([
      ex('run', 100, 500, undefined, { took: 30 }),
      health(200, counts(4, 1)),
      ex('status', 1100, undefined, undefined, { error: { kind: 'timeout' }, took: 80 }),
      ex('status', 2500, 200, undefined, { took: 60 }),
    ]);
    s.addDropped(ANCHOR + 2600);
    s.addFinal(ANCHOR + 1700, 'COMPLETED');
    return s;
  }

  it('adds counts, keeps the highest gauges and joins the histograms, in either order', () => {
    const ab = shardA();
    ab.merge(shardB());
    const ba = shardB();
    ba.merge(shardA());
    const d = ab.toJSON();
    expect(ba.toJSON()).toEqual(d);
    expect(d).toMatchObject({
      startSec: 1000,
      length: 3,
      requests: [5, 2, 1],
      r429: [1, 0, 0],
      errors: [1, 2, 0],
      submitted: [1, 0, 0],
      dropped: [0, 0, 1],
      finals: { COMPLETED: [0, 2, 0] },
      workers: [4, null, null],
      queue: [9, null, null],
    });
    expect(d.busyUs).toEqual([60_000, 120_000, 60_000]);
    expect(d.ops.run?.requests).toEqual([3, 0, 0]);
    expect(d.ops.run?.outcomes).toEqual({ '2xx': [1, 0, 0], '429': [1, 0, 0], '5xx': [1, 0, 0] });
    expect(d.ops.status?.outcomes).toEqual({ '2xx': [0, 0, 1], error: [0, 2, 0] });
    expect(cell(d.ops.status?.unanswered?.[1])).toEqual({ count: 2, maxMs: bucketOf(80) });
    expect(d.ops.status?.unanswered?.[2]).toBe('');
    expect(cell(d.ops.run?.latency[0])).toEqual({ count: 3, maxMs: bucketOf(30) });
  });

  it('merges a null gauge with a number as the number, from either side', () => {
    const gauge = seriesOf([health(0, counts(3, 0))]);
    const none = seriesOf([ex('run', 10, 200)]);
    none.merge(gauge);
    expect(none.toJSON().workers).toEqual([3]);
    expect(none.toJSON().queue).toEqual([0]);
    const back = seriesOf([health(0, counts(3, 2))]);
    back.merge(seriesOf([ex('run', 10, 200)]));
    expect(back.toJSON().workers).toEqual([3]);
    expect(back.toJSON().queue).toEqual([2]);
  });

  it('keeps a gauge merged with a second that has none as it is; a negative count is none', () => {
    const gauge = (): SecondSeries => seriesOf([health(0, counts(4, 2))]);
    // A broken server's -1 is no reading (health.negative reports it), neither -1 nor 0.
    const plain = (): SecondSeries =>
      seriesOf([health(10, counts(-1, -2)), health(20, { workers: {}, jobs: {} })]);
    expect([plain().toJSON().workers, plain().toJSON().queue]).toEqual([[null], [null]]);
    const a = gauge();
    a.merge(plain());
    expect([a.toJSON().workers, a.toJSON().queue]).toEqual([[4], [2]]);
    const b = plain();
    b.merge(gauge());
    expect([b.toJSON().workers, b.toJSON().queue]).toEqual([[4], [2]]);
    // Within a second too: an answer without the gauges leaves them.
    const live = seriesOf([health(0, counts(4, 2)), health(10, { workers: {}, jobs: {} })]).toJSON();
    expect([live.workers, live.queue]).toEqual([[4], [2]]);
  });

  it('merges an unanswered histogram into an operation that had none', () => {
    const answered = seriesOf([ex('status', 0, 200)]);
    answered.merge(seriesOf([ex('status', 0, undefined, undefined, { error: { kind: 'reset' } })]));
    const op = answered.second(1000)?.ops.get('status');
    expect(op?.unanswered?.count).toBe(1);
    expect(op?.outcomes).toEqual({ '2xx': 1, error: 1 });
  });

  it('survives a JSON round trip with every column, and merges the copy as the original', () => {
    const s = shardA();
    s.merge(shardB());
    const d = s.toJSON();
    const back = SecondSeries.fromJSON(JSON.parse(JSON.stringify(d)) as SeriesData);
    expect(back.toJSON()).toEqual(d);
    expect(back.span()).toEqual({ first: 1000, last: 1002 });
    const op = back.second(1001)?.ops.get('status');
    expect(op?.outcomes).toEqual({ error: 2 });
    expect(op?.unanswered?.count).toBe(2);
    expect(back.second(1000)?.ops.get('run')?.unanswered).toBeUndefined();
    const twice = SecondSeries.fromJSON(d);
    twice.merge(back);
    expect(twice.toJSON().requests).toEqual([10, 4, 2]);
  });

  it('reads back only the seconds that hold something, whatever the columns say around them', () => {
    const s = new SecondSeries();
    s.addSubmitted(ANCHOR);
    s.addDropped(ANCHOR + 4000);
    const d = s.toJSON();
    expect(d.length).toBe(5);
    const back = SecondSeries.fromJSON(d);
    expect(back.second(1001)).toBeUndefined();
    expect(back.second(1000)?.submitted).toBe(1);
    expect(back.toJSON()).toEqual(d);
  });

  it('keeps a second that holds only one kind of thing, for each kind', () => {
    const base: SeriesData = new SecondSeries().toJSON();
    const one = (over: Partial<SeriesData>): SecondSeries =>
      SecondSeries.fromJSON({ ...base, startSec: 7, length: 1, ...zeros(), ...over });
    const zeros = (): Partial<SeriesData> => ({
      requests: [0],
      r429: [0],
      errors: [0],
      busyUs: [0],
      submitted: [0],
      dropped: [0],
      finals: { COMPLETED: [0], FAILED: [0], CANCELLED: [0], TIMED_OUT: [0] },
      workers: [null],
      queue: [null],
      ops: {},
    });
    expect(one({}).span()).toBeUndefined();
    expect(one({ requests: [1] }).span()).toEqual({ first: 7, last: 7 });
    expect(one({ busyUs: [5] }).span()).toEqual({ first: 7, last: 7 });
    expect(one({ submitted: [1] }).span()).toEqual({ first: 7, last: 7 });
    expect(one({ dropped: [1] }).span()).toEqual({ first: 7, last: 7 });
    expect(one({ workers: [0] }).span()).toEqual({ first: 7, last: 7 });
    expect(one({ queue: [0] }).span()).toEqual({ first: 7, last: 7 });
    for (const st of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const) {
      const finals = { COMPLETED: [0], FAILED: [0], CANCELLED: [0], TIMED_OUT: [0], [st]: [1] };
      expect(one({ finals }).span()).toEqual({ first: 7, last: 7 });
    }
    // Only r429 or errors (never without requests in a real series) keep nothing.
    expect(one({ r429: [1], errors: [1] }).span()).toBeUndefined();
  });

  it('reads a summary written before outcomes were kept, and skips an operation silent in a second', () => {
    const d: SeriesData = {
      ...seriesOf([ex('run', 0, 200), ex('status', 1000, 200)]).toJSON(),
    };
    const old: SeriesData = {
      ...d,
      ops: Object.fromEntries(
        Object.entries(d.ops).map(([k, o]) => [k, { requests: o.requests, latency: o.latency }]),
      ),
    };
    const back = SecondSeries.fromJSON(old);
    expect(back.second(1000)?.ops.get('run')?.outcomes).toEqual({});
    expect(back.second(1000)?.ops.has('status')).toBe(false);
    expect(back.second(1001)?.ops.get('status')?.latency.count).toBe(1);
    expect(back.toJSON().ops.run).toEqual({ requests: [1, 0], latency: [d.ops.run?.latency[0], ''] });
  });

  it('is empty with no second at all', () => {
    const s = new SecondSeries();
    expect(s.span()).toBeUndefined();
    expect(s.toJSON()).toMatchObject({ startSec: 0, length: 0, requests: [], ops: {} });
    expect(SecondSeries.fromJSON(s.toJSON()).span()).toBeUndefined();
  });

  it('takes a span’s ends whatever order seconds came in', () => {
    const s = new SecondSeries();
    s.addSubmitted(ANCHOR + 5000);
    s.addSubmitted(ANCHOR + 2000);
    s.addSubmitted(ANCHOR + 9000);
    s.addSubmitted(ANCHOR + 1000);
    expect(s.span()).toEqual({ first: 1001, last: 1009 });
    expect(s.toJSON()).toMatchObject({ startSec: 1001, length: 9 });
    const d = s.toJSON();
    expect(d.submitted).toEqual([1, 1, 0, 0, 1, 0, 0, 0, 1]);
    // The seconds between hold zeros and no gauges, as any other column.
    expect(d.requests).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(d.workers).toEqual(new Array<null>(9).fill(null));
    expect(d.queue).toEqual(new Array<null>(9).fill(null));
    expect(d.finals.CANCELLED).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('SecondSeries: settling', () => {
  it('compacts a second’s histograms once the newest second is five past it, and each once', () => {
    const compact = vi.spyOn(SparseHistogram.prototype, 'compact');
    const s = seriesOf([
      ex('run', 0, 200),
      ex('status', 100, undefined, undefined, { error: { kind: 'reset' } }),
    ]);
    s.addExchange(ANCHOR, ex('run', 4000, 200));
    expect(compact).not.toHaveBeenCalled();
    s.addExchange(ANCHOR, ex('run', 5000, 200));
    // Second 1000's two latency histograms and its unanswered one.
    expect(compact).toHaveBeenCalledTimes(3);
    s.addExchange(ANCHOR, ex('run', 5100, 200));
    expect(compact).toHaveBeenCalledTimes(3);
    s.addExchange(ANCHOR, ex('run', 9000, 200));
    expect(compact).toHaveBeenCalledTimes(4);
  });

  it('compacts every histogram of a merged series, since nothing is added after a merge', () => {
    const a = seriesOf([
      ex('run', 0, 200),
      ex('status', 1000, undefined, undefined, { error: { kind: 'reset' } }),
    ]);
    const b = seriesOf([ex('run', 2000, 200)]);
    const compact = vi.spyOn(SparseHistogram.prototype, 'compact');
    a.merge(b);
    // run in 1000 and 1002, status and its unanswered in 1001.
    expect(compact).toHaveBeenCalledTimes(4);
  });

  it('re-opens a settled second for a late record, and settles it again later', () => {
    const compact = vi.spyOn(SparseHistogram.prototype, 'compact');
    const s = seriesOf([ex('run', 0, 200), ex('run', 6000, 200)]);
    expect(compact).toHaveBeenCalledTimes(1);
    s.addExchange(ANCHOR, ex('run', 10, 200));
    expect(s.second(1000)?.ops.get('run')?.latency.count).toBe(2);
    // Settling goes in the order seconds were opened: the late one waits behind second 1006.
    s.addExchange(ANCHOR, ex('run', 7000, 200));
    expect(compact).toHaveBeenCalledTimes(1);
    s.addExchange(ANCHOR, ex('run', 11_000, 200));
    expect(compact).toHaveBeenCalledTimes(3);
  });
});
