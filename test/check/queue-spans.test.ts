import { describe, expect, it } from 'vitest';
import { QueueSpans } from '../../src/fold/queue-spans.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { ex, job } from './records.js';

/*
 * When our jobs may have been queued, by priority: from the submit's send until the first answer
 * that showed the job out of the queue. Upper bounds: what is never seen leaving stays queued.
 */

function spans(records: ExchangeRecord[]): QueueSpans {
  const s = new QueueSpans();
  for (const r of records) s.add(r);
  return s;
}

const submit = (id: string, at: number, extra: Partial<ExchangeRecord> = {}) =>
  ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, ...extra });
const shows = (id: string, at: number, status: string, op: 'status' | 'cancel' = 'status') =>
  ex(op, at, 200, job(id, status), { jobId: id });

describe('QueueSpans', () => {
  it('counts a span overlapping [from, to] when it started by `to` and ended at `from` or later', () => {
    // Queued from 0 until the answer at 100 (ends at 105) showed it running.
    const index = spans([submit('a', 0), shows('a', 50, 'IN_QUEUE'), shows('a', 100, 'IN_PROGRESS')]).index(
      false,
    );
    expect(index.overlapping(105, 200)).toBe(1);
    expect(index.overlapping(106, 200)).toBe(0);
    expect(index.overlapping(-10, 0)).toBe(1);
    expect(index.overlapping(-10, -1)).toBe(0);
    expect(index.overlapping(20, 30)).toBe(1);
  });

  it('counts each span once, sorted whatever order they closed in', () => {
    const index = spans([
      submit('a', 0),
      submit('b', 10),
      submit('c', 20),
      shows('c', 30, 'COMPLETED'),
      shows('a', 300, 'IN_PROGRESS'),
      ex('status', 40, 404, undefined, { jobId: 'b' }),
    ]).index(false);
    // a: [0, 305], b: [10, 45], c: [20, 35].
    expect(index.overlapping(0, 1000)).toBe(3);
    expect(index.overlapping(36, 40)).toBe(2);
    expect(index.overlapping(46, 1000)).toBe(1);
    expect(index.overlapping(15, 15)).toBe(2);
    expect(index.overlapping(306, 1000)).toBe(0);
  });

  it('counts a /runsync answered 404 as queued for its wait: its ttl ended the job while it waited', () => {
    // Found by the lifecycle fuzzer: a lowPriority runsync with ttl 10 s, queued behind a worker
    // busy for 15 s, answered 404 at 10 s. /health counted it queued meanwhile; not knowing it
    // ours, scaling.stuck took it for work calling for workers.
    const deleted = ex('runsync', 10, 404, { error: 'deleted (ttl expired)' }, { took: 10_000, req: { lowPriority: true } });
    const s = spans([deleted, ex('runsync', 20, 404, undefined, { took: 100 })]);
    expect(s.index(true).overlapping(5000, 6000)).toBe(1);
    expect(s.index(true).overlapping(10_011, 20_000)).toBe(0);
    expect(s.index(false).overlapping(50, 60)).toBe(1);
    expect(s.index(false).overlapping(5000, 6000)).toBe(0);
  });

  it('keeps low-priority jobs apart, their retries included', () => {
    const s = spans([
      submit('lo', 0, { req: { lowPriority: true } }),
      shows('lo', 10, 'FAILED'),
      ex('retry', 100, 200, job('lo', 'IN_QUEUE'), { jobId: 'lo' }),
      submit('hi', 0),
      ex('retry', 200, 200, job('x', 'IN_QUEUE'), { jobId: 'x' }),
    ]);
    const low = s.index(true);
    const normal = s.index(false);
    // lo: [0, 15], then queued again from 100 on; hi and x: open.
    expect(low.overlapping(0, 5)).toBe(1);
    expect(low.overlapping(16, 99)).toBe(0);
    expect(low.overlapping(100, 1e9)).toBe(1);
    expect(normal.overlapping(0, 5)).toBe(1);
    expect(normal.overlapping(16, 199)).toBe(1);
    expect(normal.overlapping(200, 1e9)).toBe(2);
  });

  it('counts a job never seen leaving as queued to the end, from its first submit', () => {
    const index = spans([submit('a', 50), submit('a', 80), shows('a', 90, 'IN_QUEUE')]).index(false);
    expect(index.overlapping(1e12, 1e12)).toBe(1);
    expect(index.overlapping(0, 49)).toBe(0);
    expect(index.overlapping(0, 50)).toBe(1);
  });

  it('leaves a job at a 404, a cancel shown or a status other than IN_QUEUE, not at a body without one', () => {
    const s = spans([
      submit('a', 0),
      submit('b', 0),
      submit('c', 0),
      submit('d', 0),
      ex('status', 10, 200, { id: 'a', status: 7 }, { jobId: 'a' }),
      ex('status', 10, 500, job('b', 'COMPLETED'), { jobId: 'b' }),
      shows('c', 10, 'CANCELLED', 'cancel'),
      ex('stream', 10, 200, job('d', 'COMPLETED'), { jobId: 'd' }),
    ]);
    // a and b stay queued; c and d left at 15.
    expect(s.index(false).overlapping(16, 1e9)).toBe(2);
    expect(s.index(false).overlapping(15, 1e9)).toBe(4);
  });

  it('opens a span only at a submit or retry answered 200, never at a later poll', () => {
    const s = spans([
      submit('a', 0),
      shows('a', 100, 'IN_PROGRESS'),
      shows('a', 200, 'IN_PROGRESS'),
      shows('z', 300, 'IN_QUEUE'),
      ex('run', 400, 400, job('b', 'IN_QUEUE'), { jobId: 'b' }),
      ex('retry', 500, 409, job('a', 'IN_QUEUE'), { jobId: 'a' }),
    ]);
    expect(s.index(false).overlapping(106, 1e9)).toBe(0);
  });

  it('keeps a retry of a normal job normal', () => {
    const s = spans([
      submit('lo', 0, { req: { lowPriority: true } }),
      submit('n', 0),
      shows('n', 10, 'FAILED'),
      ex('retry', 100, 200, job('n', 'IN_QUEUE'), { jobId: 'n' }),
    ]);
    expect(s.index(true).overlapping(100, 1e9)).toBe(1);
    expect(s.index(false).overlapping(100, 1e9)).toBe(1);
  });

  it('reads only the operations that show where a job is', () => {
    const s = spans([submit('a', 0), ex('health', 10, 200, { status: 'COMPLETED' }, { jobId: 'a' })]);
    expect(s.index(false).overlapping(1e9, 1e9)).toBe(1);
    const noId = spans([ex('run', 0, 200, job('a', 'IN_QUEUE'))]);
    expect(noId.index(false).overlapping(0, 1e9)).toBe(0);
  });

  it('counts a submit without an answer, or answered 5xx, as a job queued to the end', () => {
    const s = spans([
      ex('run', 10, undefined),
      ex('runsync', 20, 500),
      ex('run', 30, 499),
      ex('status', 40, undefined, undefined, { jobId: 'z' }),
    ]);
    expect(s.index(false).overlapping(0, 9)).toBe(0);
    expect(s.index(false).overlapping(0, 10)).toBe(1);
    expect(s.index(false).overlapping(1e9, 1e9)).toBe(2);
    expect(s.index(true).overlapping(0, 1e9)).toBe(0);
  });

  it('counts an OpenAI completion as queued while it was in flight, to the end when unanswered', () => {
    const s = spans([
      ex('openai', 0, 200, undefined, { took: 50 }),
      ex('openai', 100, undefined),
      ex('openai', 200, 200, undefined, { method: 'GET' }),
    ]);
    const index = s.index(false);
    expect(index.overlapping(50, 50)).toBe(1);
    expect(index.overlapping(51, 99)).toBe(0);
    expect(index.overlapping(1e9, 1e9)).toBe(1);
    expect(index.overlapping(0, 1e9)).toBe(2);
    expect(s.index(true).overlapping(0, 1e9)).toBe(0);
  });

  it('empties the queue at a purge answered 200', () => {
    const s = spans([
      submit('a', 0),
      submit('b', 0, { req: { lowPriority: true } }),
      ex('purge-queue', 100, 500),
      ex('purge-queue', 200, 200),
    ]);
    expect(s.index(false).overlapping(205, 205)).toBe(1);
    expect(s.index(false).overlapping(206, 1e9)).toBe(0);
    expect(s.index(true).overlapping(206, 1e9)).toBe(0);
    expect(s.index(true).overlapping(0, 205)).toBe(1);
  });

  it('keeps only the lowPriority spans when asked to, whatever closed or left open a normal one', () => {
    const records = [
      submit('lo', 0, { req: { lowPriority: true } }),
      submit('n', 0),
      submit('m', 0),
      shows('m', 20, 'IN_PROGRESS'),
      ex('openai', 30, 200, undefined, { took: 10 }),
      ex('runsync', 40, 404, undefined, { took: 10 }),
      ex('run', 50, 503),
    ];
    const all = spans(records);
    const low = new QueueSpans({ lowOnly: true });
    for (const r of records) low.add(r);
    // Normal: n open, m [0, 25], the completion [30, 40], the runsync [40, 50], the 503 open.
    expect(all.index(false).overlapping(0, 1e9)).toBe(5);
    expect(low.index(false).overlapping(0, 1e9)).toBe(0);
    expect(low.index(true).overlapping(0, 1e9)).toBe(1);
    expect(low.lowSpans()).toEqual(all.lowSpans());
    expect(low.lowSpans()).toEqual([[0, null]]);
  });

  it('counts a /runsync answered 200 once: queued from its send until the answer that showed it done', () => {
    const s = spans([ex('runsync', 100, 200, job('a', 'COMPLETED'), { jobId: 'a', took: 50 })]);
    expect(s.index(false).overlapping(0, 1e9)).toBe(1);
    expect(s.index(false).overlapping(150, 150)).toBe(1);
    expect(s.index(false).overlapping(151, 1e9)).toBe(0);
  });

  it('lists the lowPriority spans shifted, closed ones first, an open or given-up one ending at null', () => {
    const s = new QueueSpans({ maxJobs: 3 });
    for (const r of [
      submit('lo1', 0, { req: { lowPriority: true } }),
      submit('lo2', 10, { req: { lowPriority: true } }),
      submit('n', 20),
      // A fourth job in the queue: lo1, the oldest, is given up on (queued to the end).
      submit('lo3', 30, { req: { lowPriority: true } }),
      shows('lo3', 40, 'IN_PROGRESS'),
    ])
      s.add(r);
    expect(s.dropped).toEqual({ limit: 3, coarsened: 0, givenUp: 1 });
    expect(s.lowSpans(1000)).toEqual([
      [1000, null],
      [1030, 1045],
      [1010, null],
    ]);
    expect(s.lowSpans()).toEqual([
      [0, null],
      [30, 45],
      [10, null],
    ]);
  });
});
