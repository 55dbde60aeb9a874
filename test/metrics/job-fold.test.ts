import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, JobstormRecord, OutputFacts, WebhookRecord } from '../../src/core/record.js';
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

const output = (at: number, pieces: number): OutputFacts => ({ unit: 'chunks', arrivals: [[at, pieces]] });

describe('JobFold edges (issue 47)', () => {
  it('reads exchanges only: a webhook delivery naming a job folds to nothing', () => {
    const f = new JobFold();
    f.add(ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }));
    const delivery: WebhookRecord = {
      v: 1,
      type: 'webhook',
      seq: ++seq,
      at: 5,
      jobId: 'a',
      path: '/hook',
      answered: 200,
      bytes: 40,
      body: { id: 'a', status: 'COMPLETED' },
    };
    const ev = f.add(delivery);
    expect([ev.jobId, ev.shown, ev.final]).toEqual([undefined, undefined, undefined]);
    expect(f.open).toBe(1);
  });

  it('opens nothing for an accepted submission that names no job', () => {
    const f = new JobFold();
    const ev = f.add(ex({ op: 'run', sentAt: 0, endAt: 1, body: { status: 'IN_QUEUE' } }));
    expect([ev.jobId, ev.opened, ev.shown]).toEqual([undefined, undefined, undefined]);
    expect(f.open).toBe(0);
  });

  it('trusts only a 2xx answer without an error: 199, 300 and a 200 cut by an error close nothing', () => {
    const f = new JobFold();
    const done = { id: 'a', status: 'COMPLETED' };
    const events = fold(
      [
        ex({ op: 'run', sentAt: 0, endAt: 1, status: 199, body: { id: 'a', status: 'IN_QUEUE' } }),
        ex({ op: 'run', sentAt: 0, endAt: 1, status: 300, body: { id: 'a', status: 'IN_QUEUE' } }),
        ex({ op: 'run', sentAt: 0, endAt: 2, status: 299, body: { id: 'a', status: 'IN_QUEUE' } }),
        ex({ op: 'status', jobId: 'a', sentAt: 10, endAt: 11, status: 199, body: done }),
        ex({ op: 'status', jobId: 'a', sentAt: 10, endAt: 12, status: 300, body: done }),
        ex({
          op: 'status',
          jobId: 'a',
          sentAt: 10,
          endAt: 13,
          status: 200,
          body: done,
          error: { kind: 'timeout' },
        }),
        ex({ op: 'status', jobId: 'a', sentAt: 10, endAt: 14, status: 299, body: done }),
      ],
      f,
    );
    expect(events).toEqual([
      {},
      {},
      { opened: 'submit' },
      {},
      {},
      {},
      { final: ['COMPLETED', 14, undefined, undefined] },
    ]);
    // The answer's state is read whatever its status.
    expect(f.add(ex({ op: 'status', jobId: 'b', sentAt: 0, endAt: 1, status: 500, body: done })).shown).toBe(
      'COMPLETED',
    );
  });

  it('takes a request intended exactly at the end of the warm-up as measured', () => {
    const f = new JobFold({ warmupMs: 1000 });
    const events = fold(
      [
        ex({ op: 'run', intendedAt: 999, sentAt: 1001, endAt: 1010, body: { id: 'w' } }),
        ex({ op: 'run', intendedAt: 1000, sentAt: 1001, endAt: 1010, body: { id: 'm' } }),
      ],
      f,
    );
    expect(events).toEqual([{ opened: 'submit', warm: true }, { opened: 'submit' }]);
  });

  it('times the first chunk from an accepted /stream read that carried chunks only', () => {
    const events = fold([
      ex({ op: 'run', sentAt: 0, endAt: 1, body: { id: 'a', status: 'IN_QUEUE' } }),
      // A status answer with a stream in its body, a refused /stream read, an empty one: no chunk.
      ex({
        op: 'status',
        jobId: 'a',
        sentAt: 5,
        endAt: 6,
        body: { id: 'a', status: 'IN_PROGRESS', ...chunk },
      }),
      ex({ op: 'stream', jobId: 'a', sentAt: 7, endAt: 8, status: 503, body: chunk }),
      ex({ op: 'stream', jobId: 'a', sentAt: 9, endAt: 10, body: { stream: [] } }),
      ex({ op: 'stream', jobId: 'a', sentAt: 11, endAt: 12, body: [] }),
      ex({ op: 'stream', jobId: 'a', sentAt: 13, endAt: 20, body: chunk }),
    ]);
    expect(events).toEqual([{ opened: 'submit' }, {}, {}, {}, {}, { firstChunk: 20 }]);
  });

  it("gives a final state the output of the job's accepted /stream reads, for a job read through /stream only", () => {
    const f = new JobFold();
    const o1 = output(5, 2);
    const o2 = output(9, 3);
    const open = (id: string, at: number): JobstormRecord =>
      ex({ op: 'run', sentAt: at, endAt: at + 1, body: { id, status: 'IN_QUEUE' } });
    const done = (id: string, at: number, op: 'status' | 'stream' = 'status'): JobstormRecord =>
      ex({ op, jobId: id, sentAt: at, endAt: at + 1, body: { id, status: 'COMPLETED' } });
    // a: two reads with output, a refused read and a status answer with output left out.
    f.add(open('a', 0));
    f.add(ex({ op: 'stream', jobId: 'a', sentAt: 4, endAt: 5, body: chunk, output: o1 }));
    f.add(
      ex({ op: 'stream', jobId: 'a', sentAt: 6, endAt: 7, status: 500, body: chunk, output: output(7, 9) }),
    );
    f.add(ex({ op: 'status', jobId: 'a', sentAt: 7, endAt: 8, body: { id: 'a' }, output: output(8, 9) }));
    f.add(ex({ op: 'stream', jobId: 'a', sentAt: 8, endAt: 9, body: chunk, output: o2 }));
    expect(f.add(done('a', 10)).output).toEqual({ openedAt: 0, parts: [o1, o2] });
    // b: read through /stream without output; c: never read through /stream, an output notwithstanding.
    f.add(open('b', 20));
    f.add(ex({ op: 'stream', jobId: 'b', sentAt: 21, endAt: 22, body: { stream: [] } }));
    expect(f.add(done('b', 23)).output).toEqual({ openedAt: 20, parts: [] });
    f.add(open('c', 30));
    f.add(ex({ op: 'status', jobId: 'c', sentAt: 31, endAt: 32, body: { id: 'c' }, output: output(32, 1) }));
    const c = f.add(done('c', 33));
    expect([c.final, c.output]).toEqual(['COMPLETED', undefined]);
    // d: a refused /stream read still counts as a read through /stream, with no output.
    f.add(open('d', 40));
    f.add(ex({ op: 'stream', jobId: 'd', sentAt: 41, endAt: 42, status: 500, body: { error: 'x' } }));
    expect(f.add(done('d', 43)).output).toEqual({ openedAt: 40, parts: [] });
    // e: a final /stream read carries its own output.
    f.add(open('e', 50));
    const o3 = output(54, 4);
    expect(
      f.add(
        ex({
          op: 'stream',
          jobId: 'e',
          sentAt: 52,
          endAt: 54,
          body: { status: 'COMPLETED', ...chunk },
          output: o3,
        }),
      ).output,
    ).toEqual({
      openedAt: 50,
      parts: [o3],
    });
  });

  it('counts the jobs given up on for its cap, once some were', () => {
    const f = new JobFold({ maxTracked: 2 });
    expect(f.caps()).toEqual([]);
    for (const id of ['a', 'b']) f.add(ex({ op: 'run', sentAt: 0, endAt: 1, body: { id } }));
    expect(f.caps()).toEqual([]);
    for (const id of ['c', 'd', 'e']) f.add(ex({ op: 'run', sentAt: 0, endAt: 1, body: { id } }));
    expect(f.caps()).toEqual([{ id: 'jobs.followed', limit: 2, dropped: 3 }]);
  });

  it("names an unlabelled job's shard as none, after labelled ones", () => {
    const f = new JobFold({ maxTracked: 1 });
    const events = fold(
      [
        ex({ op: 'run', shard: '1/2', sentAt: 0, endAt: 1, body: { id: 'a' } }),
        ex({ op: 'run', sentAt: 2, endAt: 3, body: { id: 'b' } }),
        ex({ op: 'run', shard: '1/2', sentAt: 4, endAt: 5, body: { id: 'c' } }),
        ex({ op: 'run', shard: '2/2', sentAt: 6, endAt: 7, body: { id: 'd' } }),
      ],
      f,
    );
    expect(events.map((e) => e.evicted)).toEqual([
      undefined,
      ['1/2', false],
      [undefined, false],
      ['1/2', false],
    ]);
  });

  it('numbers a shard label once, however often the labels alternate', () => {
    // More switches than a slot's shard number can count: a label numbered again at each would
    // run out of numbers and lose its name.
    const f = new JobFold({ maxTracked: 1 });
    const shards = ['1/2', '2/2'];
    let wrong = 0;
    for (let i = 0; i < 70_000; i++) {
      const ev = f.add(
        ex({ op: 'run', shard: shards[i % 2], sentAt: i, endAt: i + 1, body: { id: `j${String(i)}` } }),
      );
      if (i > 0 && ev.evictedShard !== shards[(i - 1) % 2]) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('names the first 65,535 shard labels, and counts those past them as unlabelled', () => {
    const f = new JobFold({ maxTracked: 1 });
    const named: (string | undefined)[] = [];
    for (let i = 1; i <= 65_538; i++) {
      const ev = f.add(
        ex({ op: 'run', shard: `s${String(i)}`, sentAt: i, endAt: i + 1, body: { id: `j${String(i)}` } }),
      );
      if (i > 65_530) named.push(ev.evictedShard);
    }
    // Each opening gives up on the job before it: j65530 … j65537.
    expect(named).toEqual(['s65530', 's65531', 's65532', 's65533', 's65534', 's65535', undefined, undefined]);
  });
});
