import { describe, expect, it } from 'vitest';
import { JobBook, type JobState } from '../../src/check/job-book.js';

/*
 * When the book lets a job go (src/check/job-book.ts): a final job once record time passes its
 * hold, the oldest job early when too many are held, the rest at the end; a job let go is kept in
 * brief and comes back, as a new object, when it is asked for again.
 */

const book = (maxJobs = 100, maxAfterlife = 100): JobBook =>
  new JobBook({ webhookHoldMs: 50, holdMs: 10, maxJobs, maxAfterlife });

function final(b: JobBook, id: string, at: number, webhook = false): JobState {
  const j = b.touch(id);
  j.webhook = webhook;
  j.last = 'COMPLETED';
  b.holdUntilFinal(j, at);
  return j;
}

describe('JobBook retires', () => {
  it('a final job once record time reaches its hold, longer with a webhook', () => {
    const b = book();
    final(b, 'plain', 0);
    final(b, 'hooked', 0, true);
    const retired: string[] = [];
    const retire = (j: JobState) => void retired.push(j.id);
    const held: boolean[] = [];
    b.advance(9, retire);
    b.advance(9, (j) => void held.push(j.held));
    expect(held).toEqual([]);
    expect(retired).toEqual([]);
    b.advance(10, (j) => {
      held.push(j.held);
      retire(j);
    });
    expect(retired).toEqual(['plain']);
    expect(held).toEqual([false]);
    b.advance(49, retire);
    expect(retired).toEqual(['plain']);
    b.advance(50, retire);
    expect(retired).toEqual(['plain', 'hooked']);
    expect(b.size).toBe(0);
    expect([...b.known()].map((j) => [j.id, j.held])).toEqual([
      ['plain', false],
      ['hooked', false],
    ]);
  });

  it('marks a job foldable once per final state: a second call keeps the first hold', () => {
    const b = book();
    const j = final(b, 'a', 0);
    b.holdUntilFinal(j, 100);
    expect(j.retireAfter).toBe(10);
    const retired: string[] = [];
    b.advance(10, (x) => void retired.push(x.id));
    expect(retired).toEqual(['a']);
  });

  it('skips a hold made stale by a retry, and retires the job at its new hold', () => {
    const b = book();
    const j = final(b, 'a', 0);
    j.retireAfter = undefined;
    b.holdUntilFinal(j, 20);
    const retired: string[] = [];
    const retire = (x: JobState) => void retired.push(x.id);
    b.advance(15, retire);
    expect(retired).toEqual([]);
    b.advance(30, retire);
    expect(retired).toEqual(['a']);
  });

  it('retires a job once even when its hold is listed twice', () => {
    const b = book();
    const j = final(b, 'a', 0);
    b.advance(10, () => undefined);
    const back = b.get('a');
    expect(back).not.toBe(j);
    expect(back?.held).toBe(true);
    const retired: string[] = [];
    b.advance(1000, (x) => void retired.push(x.id));
    expect(retired).toEqual([]);
    expect(b.drain().map((x) => x.id)).toEqual(['a']);
  });

  it('retires the oldest job early when more are held than the cap, at the next advance', () => {
    const b = book(2);
    b.touch('a');
    b.touch('b');
    b.touch('c');
    expect(b.size).toBe(2);
    const retired: string[] = [];
    b.advance(0, (x) => void retired.push(`${x.id}:${String(x.held)}`));
    expect(retired).toEqual(['a:false']);
    expect(b.get('a')?.id).toBe('a');
    expect(b.get('a')?.held).toBe(true);
  });

  it('drains every job still held, the evicted ones first, and lets them all go', () => {
    const b = book(2);
    for (const id of ['a', 'b', 'c']) b.touch(id);
    const all = b.drain();
    expect(all.map((x) => [x.id, x.held])).toEqual([
      ['a', false],
      ['b', false],
      ['c', false],
    ]);
    expect(b.size).toBe(0);
    expect(b.get('b')).toBeUndefined();
    expect(b.drain()).toEqual([]);
  });

  it('gives the same job for repeated lookups, and a new one after it was let go', () => {
    const b = book();
    expect(b.get('a')).toBeUndefined();
    const a = b.touch('a');
    expect(b.get('a')).toBe(a);
    expect(b.touch('a')).toBe(a);
    expect(b.get('b')).toBeUndefined();
    expect(b.get('a')).toBe(a);
    a.last = 'COMPLETED';
    b.holdUntilFinal(a, 0);
    b.advance(10, () => undefined);
    const back = b.get('a');
    expect(back).toBeDefined();
    expect(back).not.toBe(a);
    expect(b.get('a')).toBe(back);
    expect(b.drainView().next().value).toBe(back);
  });

  it('keeps folding in order past thousands of jobs', () => {
    const b = book(10_000, 10_000);
    const retired: string[] = [];
    for (let i = 0; i < 5000; i++) final(b, `j${String(i)}`, i);
    b.advance(4200, (x) => void retired.push(x.id));
    expect(retired).toHaveLength(4191);
    for (let i = 5000; i < 5010; i++) final(b, `j${String(i)}`, i);
    b.advance(10_000, (x) => void retired.push(x.id));
    expect(retired).toEqual(Array.from({ length: 5010 }, (_, i) => `j${String(i)}`));
  });

  it('a retry starts the job afresh: not drained, not final, not foldable', () => {
    const b = book();
    const j = final(b, 'a', 0);
    j.streamDrained = true;
    j.finalAt = 5;
    b.action(j, { type: 'exchange', op: 'retry', sentAt: 20 } as never, 'retry');
    expect([j.streamDrained, j.finalAt, j.retireAfter, j.queuedAt, j.retries]).toEqual([
      false,
      undefined,
      undefined,
      20,
      1,
    ]);
  });

  it('adds deliveries to the job, never to the list shared by jobs without one', () => {
    const b = book();
    const a = b.touch('a');
    const other = b.touch('b');
    const d = { at: 1, answered: 200, record: {} as never };
    b.deliver(a, d);
    b.deliver(a, { ...d, at: 2 });
    expect(a.deliveries.map((x) => x.at)).toEqual([1, 2]);
    expect(other.deliveries).toEqual([]);
  });
});
