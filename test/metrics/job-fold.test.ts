import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { JobFold, type JobEvents } from '../../src/metrics/index.js';

let seq = 0;
function ex(r: Partial<ExchangeRecord> & Pick<ExchangeRecord, 'op' | 'sentAt' | 'endAt'>): ExchangeRecord {
  return {
    v: 1,
    type: 'exchange',
    seq: ++seq,
    method: 'GET',
    path: '/',
    intendedAt: r.sentAt,
    reqBytes: 0,
    resBytes: 0,
    status: 200,
    ...r,
  };
}

/** The events of one record as a plain object, only what happened (the fold reuses its result). */
function seen(ev: JobEvents): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (ev.opened) out.opened = ev.opened;
  if (ev.reopened) out.reopened = true;
  if (ev.firstChunk) out.firstChunk = ev.sinceOpenMs;
  if (ev.final) out.final = [ev.final, ev.sinceOpenMs, ev.delayMs, ev.executionMs];
  if (ev.lost) out.lost = true;
  if (ev.warm) out.warm = true;
  if (ev.evicted) out.evicted = [ev.evictedShard, ev.evictedWarm];
  return out;
}

function fold(records: readonly JobstormRecord[], f = new JobFold()): Record<string, unknown>[] {
  return records.map((r) => seen(f.add(r)));
}

const chunk = { stream: [{ output: 'x' }] };

describe('JobFold', () => {
  it('folds a saved sequence: submit, polls, chunk, final, a late poll, a 404, a retry', () => {
    const f = new JobFold();
    const events = fold(
      [
        { v: 1, type: 'dropped', seq: ++seq, intendedAt: 0, flow: 'f' },
        ex({ op: 'health', sentAt: 0, endAt: 1, body: { workers: {} } }),
        // a: submitted, polled, streams, ends COMPLETED; a late poll of it folds to nothing.
        ex({ op: 'run', sentAt: 0, endAt: 10, body: { id: 'a', status: 'IN_QUEUE' } }),
        ex({ op: 'status', jobId: 'a', sentAt: 20, endAt: 25, body: { id: 'a', status: 'IN_PROGRESS' } }),
        ex({ op: 'stream', jobId: 'a', sentAt: 30, endAt: 40, body: chunk }),
        ex({ op: 'stream', jobId: 'a', sentAt: 41, endAt: 50, body: chunk }),
        ex({
          op: 'status',
          jobId: 'a',
          sentAt: 60,
          endAt: 70,
          body: { id: 'a', status: 'COMPLETED', delayTime: 12, executionTime: 30 },
        }),
        ex({ op: 'status', jobId: 'a', sentAt: 80, endAt: 90, body: { id: 'a', status: 'COMPLETED' } }),
        // b: a refused submission opens nothing; an accepted one does; a 404 on its lookup loses it.
        ex({ op: 'run', sentAt: 100, endAt: 101, status: 429, body: { id: 'b' } }),
        ex({ op: 'run', jobId: 'b', sentAt: 100, endAt: 110, body: { id: 'b', status: 'IN_QUEUE' } }),
        ex({ op: 'status', jobId: 'b', sentAt: 120, endAt: 125, status: 404 }),
        ex({ op: 'status', jobId: 'b', sentAt: 130, endAt: 135, status: 404 }),
        // c: ends FAILED from a sync answer, is retried (re-opened), then cancelled.
        ex({ op: 'runsync', sentAt: 200, endAt: 300, body: { id: 'c', status: 'FAILED' } }),
        ex({ op: 'retry', jobId: 'c', sentAt: 400, endAt: 405, body: { id: 'c', status: 'IN_QUEUE' } }),
        ex({ op: 'retry', jobId: 'c', sentAt: 410, endAt: 415, body: { id: 'c', status: 'IN_QUEUE' } }),
        ex({ op: 'cancel', jobId: 'c', sentAt: 500, endAt: 505, body: { id: 'c', status: 'CANCELLED' } }),
        // A transport error on a job in flight changes nothing.
        ex({ op: 'run', sentAt: 600, endAt: 610, body: { id: 'd', status: 'IN_QUEUE' } }),
        ex({
          op: 'status',
          jobId: 'd',
          sentAt: 620,
          endAt: 630,
          status: undefined,
          error: { kind: 'reset' },
        }),
      ],
      f,
    );
    expect(events).toEqual([
      {},
      {},
      { opened: 'submit' },
      {},
      { firstChunk: 40 },
      {},
      { final: ['COMPLETED', 70, 12, 30] },
      {},
      {},
      { opened: 'submit' },
      { lost: true },
      {},
      { opened: 'submit', final: ['FAILED', 100, undefined, undefined] },
      { opened: 'retry' },
      {},
      { final: ['CANCELLED', 105, undefined, undefined] },
      { opened: 'submit' },
      {},
    ]);
    expect(f.open).toBe(1);
  });

  it('a 404 on any lookup of a job (status, status-sync, stream) loses it; on cancel or retry it does not', () => {
    for (const op of ['status', 'status-sync', 'stream'] as const) {
      const f = new JobFold();
      const events = fold(
        [
          ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }),
          ex({ op, jobId: 'a', sentAt: 5, endAt: 6, status: 404, body: { error: 'not found' } }),
        ],
        f,
      );
      expect(events, op).toEqual([{ opened: 'submit' }, { lost: true }]);
      expect(f.open, op).toBe(0);
    }
    for (const op of ['cancel', 'retry'] as const) {
      const f = new JobFold();
      const events = fold(
        [
          ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }),
          ex({ op, jobId: 'a', sentAt: 5, endAt: 6, status: 404, body: { error: 'not found' } }),
        ],
        f,
      );
      expect(events, op).toEqual([{ opened: 'submit' }, {}]);
      expect(f.open, op).toBe(1);
    }
  });

  it('times the first chunk once per opening: a retry re-opens the count', () => {
    const events = fold([
      ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }),
      ex({ op: 'stream', jobId: 'a', sentAt: 5, endAt: 10, body: chunk }),
      ex({
        op: 'stream',
        jobId: 'a',
        sentAt: 21,
        endAt: 22,
        body: { status: 'FAILED', stream: chunk.stream },
      }),
      ex({ op: 'retry', jobId: 'a', sentAt: 30, endAt: 31, body: { id: 'a', status: 'IN_QUEUE' } }),
      ex({ op: 'stream', jobId: 'a', sentAt: 32, endAt: 60, body: [{ output: 'x' }] }),
    ]);
    expect(events).toEqual([
      { opened: 'submit' },
      { firstChunk: 10 },
      { final: ['FAILED', 22, undefined, undefined] },
      { opened: 'retry' },
      { firstChunk: 30 },
    ]);
  });

  it('gives up on the oldest job past its cap, saying whose it was, and forgets it', () => {
    const f = new JobFold({ maxTracked: 2 });
    const events = fold(
      [
        ex({ op: 'run', shard: '1/2', sentAt: 0, endAt: 1, body: { id: 'a' } }),
        ex({ op: 'run', shard: '2/2', sentAt: 2, endAt: 3, body: { id: 'b' } }),
        ex({ op: 'run', shard: '2/2', sentAt: 4, endAt: 5, body: { id: 'c' } }),
        ex({ op: 'run', sentAt: 6, endAt: 7, body: { id: 'd' } }),
        // a was given up on: its final answer folds to nothing.
        ex({ op: 'status', jobId: 'a', sentAt: 8, endAt: 9, body: { id: 'a', status: 'COMPLETED' } }),
        ex({ op: 'status', jobId: 'c', sentAt: 8, endAt: 9, body: { id: 'c', status: 'COMPLETED' } }),
      ],
      f,
    );
    expect(events).toEqual([
      { opened: 'submit' },
      { opened: 'submit' },
      { opened: 'submit', evicted: ['1/2', false] },
      { opened: 'submit', evicted: ['2/2', false] },
      {},
      { final: ['COMPLETED', 5, undefined, undefined] },
    ]);
    expect(f.open).toBe(1);
    // A cap of 0 opens and gives up on the same job at once.
    expect(
      fold([ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'z' } })], new JobFold({ maxTracked: 0 })),
    ).toEqual([{ opened: 'submit', evicted: [undefined, false] }]);
  });

  it('flags the jobs a warm-up request opened, until a measured request opens them again', () => {
    const f = new JobFold({ warmupMs: 1000 });
    const events = fold(
      [
        ex({ op: 'run', sentAt: 100, endAt: 110, body: { id: 'w', status: 'IN_QUEUE' } }),
        ex({ op: 'status', jobId: 'w', sentAt: 1500, endAt: 1510, body: { id: 'w', status: 'COMPLETED' } }),
        ex({ op: 'run', sentAt: 200, endAt: 210, body: { id: 'v', status: 'IN_QUEUE' } }),
        ex({ op: 'retry', jobId: 'v', sentAt: 1600, endAt: 1610, body: { id: 'v', status: 'IN_QUEUE' } }),
        ex({ op: 'status', jobId: 'v', sentAt: 1700, endAt: 1720, body: { id: 'v', status: 'FAILED' } }),
        ex({ op: 'run', sentAt: 2000, endAt: 2010, body: { id: 'm', status: 'IN_QUEUE' } }),
      ],
      f,
    );
    expect(events).toEqual([
      { opened: 'submit', warm: true },
      { final: ['COMPLETED', 1410, undefined, undefined], warm: true },
      { opened: 'submit', warm: true },
      // Measured consumers follow v from its retry; the others had it open all along.
      { opened: 'retry', reopened: true },
      { final: ['FAILED', 120, undefined, undefined] },
      { opened: 'submit' },
    ]);
    // Without a warm-up nothing is warm, whatever the times (a later shard's may be negative).
    expect(fold([ex({ op: 'run', intendedAt: -5, sentAt: -5, endAt: 1, body: { id: 'n' } })])).toEqual([
      { opened: 'submit' },
    ]);
  });

  it('hands back one object, cleared for each record', () => {
    const f = new JobFold();
    const first = f.add(ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a' } }));
    const second = f.add(ex({ op: 'status', jobId: 'a', sentAt: 2, endAt: 3, body: { status: 'IN_QUEUE' } }));
    expect(second).toBe(first);
    expect(seen(second)).toEqual({});
  });
});
