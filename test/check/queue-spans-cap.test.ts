import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import { COARSE_SPAN_MS, QueueSpans } from '../../src/fold/queue-spans.js';
import { ex, job } from './records.js';

/*
 * Issue 52: the queue spans the scaling checks and figures read are bounded for soaks of millions of
 * jobs, and stay upper bounds: a job given up on counts as queued to the end, and the oldest closed
 * spans are counted by bucket of COARSE_SPAN_MS, widened to the bucket edges.
 */

const submit = (id: string, at: number, low = false): ExchangeRecord =>
  ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, req: low ? { lowPriority: true } : {} });
const running = (id: string, at: number): ExchangeRecord =>
  ex('status', at, 200, job(id, 'IN_PROGRESS'), { jobId: id, took: 0 });

function fed(spans: QueueSpans, records: readonly ExchangeRecord[]): QueueSpans {
  for (const r of records) spans.add(r);
  return spans;
}

describe('QueueSpans past its caps', () => {
  it('follows at most maxJobs jobs at once: the oldest given up on stays queued to the end', () => {
    const records = Array.from({ length: 10 }, (_, i) => submit(`j${String(i)}`, i * 10));
    const spans = fed(new QueueSpans({ maxJobs: 3 }), [...records, running('j0', 500), running('j9', 500)]);
    expect(spans.dropped.givenUp).toBe(7);
    // j0 was given up on before it was seen running: still counted queued after; j9 left at 500.
    expect(spans.index(false).overlapping(1000, 2000)).toBe(9);
    expect(spans.index(false).overlapping(95, 96)).toBe(10);
  });

  it('counts the oldest closed spans by bucket, widened to its edges, once more than maxJobs closed', () => {
    // Ten spans [1000 i + 30, 1000 i + 60], closed in order; three kept exact at most.
    const records = Array.from({ length: 10 }, (_, i) => [
      submit(`j${String(i)}`, 1000 * i + 30),
      running(`j${String(i)}`, 1000 * i + 60),
    ]).flat();
    const exact = fed(new QueueSpans(), records).index(false);
    const spans = fed(new QueueSpans({ maxJobs: 3 }), records);
    // Each time more than 3 are closed, the oldest half goes: 8 of 10, j8 and j9 left exact.
    expect(spans.dropped).toEqual({ limit: 3, coarsened: 8, givenUp: 0 });
    const capped = spans.index(false);
    for (let i = 0; i < 10; i++) {
      const at = 1000 * i;
      // Inside a span: counted by both; just outside it, within its bucket: only a coarse span is.
      expect(capped.overlapping(at + 45, at + 45)).toBe(1);
      expect(exact.overlapping(at + 10, at + 20)).toBe(0);
      expect(capped.overlapping(at + 10, at + 20)).toBe(i < 8 ? 1 : 0);
      expect(exact.overlapping(at + 70, at + 90)).toBe(0);
      expect(capped.overlapping(at + 70, at + 90)).toBe(i < 8 ? 1 : 0);
      // Outside the bucket, nothing.
      expect(capped.overlapping(at + COARSE_SPAN_MS + 1, at + 900)).toBe(0);
    }
    expect(capped.overlapping(0, 10_000)).toBe(10);
  });

  it('lists the exact lowPriority spans only, and says how many it left out', () => {
    const records = Array.from({ length: 6 }, (_, i) => [
      submit(`lo${String(i)}`, 100 * i, true),
      running(`lo${String(i)}`, 100 * i + 50),
    ]).flat();
    const spans = fed(new QueueSpans({ lowOnly: true, maxJobs: 4 }), records);
    const listed = spans.lowSpans();
    expect(listed.length + spans.dropped.coarsened).toBe(6);
    expect(listed.length).toBeLessThanOrEqual(4);
    expect(listed.at(-1)).toEqual([500, 550]);
  });

  it('remembers at most maxJobs lowPriority jobs for their retries', () => {
    const spans = fed(new QueueSpans({ maxJobs: 2 }), [
      submit('lo0', 0, true),
      submit('lo1', 1, true),
      running('lo1', 5),
      // A third lowPriority job: lo0 is forgotten as one (it stays followed, queued).
      submit('lo2', 6, true),
      ex('status', 10, 200, job('lo0', 'FAILED'), { jobId: 'lo0', took: 0 }),
      ex('retry', 20, 200, job('lo0', 'IN_QUEUE'), { jobId: 'lo0', took: 0 }),
    ]);
    expect(spans.dropped.givenUp).toBe(0);
    // Its retry is taken for a normal job's: queued work that calls for workers, an upper bound.
    expect(spans.index(false).overlapping(30, 40)).toBe(1);
    expect(spans.index(true).overlapping(30, 40)).toBe(1);
    expect(spans.index(true).overlapping(7, 8)).toBe(2);
  });
});
