import { describe, expect, it } from 'vitest';
import { JobBook } from '../../src/check/job-book.js';

/*
 * A job's timeline grows by copy while short (an array the size of its entries) and by push after
 * (bench/job-book-memory.ts). Either way it keeps every entry in order, and a long one keeps its
 * first entry and the latest.
 */

const book = (): JobBook => new JobBook({ webhookHoldMs: 45_000, holdMs: 2_000, maxJobs: 1000, maxAfterlife: 1000 });

describe('JobBook timeline', () => {
  it('keeps every entry in order across the switch from copy to push', () => {
    const b = book();
    const job = b.touch('a');
    expect(job.timeline).toEqual([]);
    const seen: number[][] = [];
    for (let i = 0; i < 40; i++) {
      b.addTimeline(job, { at: i, op: 'status', status: 'IN_QUEUE' });
      seen.push(job.timeline.map((e) => e.at));
    }
    seen.forEach((ats, i) => expect(ats).toEqual(Array.from({ length: i + 1 }, (_, k) => k)));
    // Another job's timeline is its own: the empty one new jobs start from is shared, never added to.
    expect(b.touch('b').timeline).toEqual([]);
  });

  it('keeps the first entry and the latest ones of a long timeline', () => {
    const b = book();
    const job = b.touch('a');
    for (let i = 0; i < 100; i++) b.addTimeline(job, { at: i, op: 'status', status: 'IN_QUEUE' });
    expect(job.timeline).toHaveLength(64);
    expect(job.timeline[0]?.at).toBe(0);
    expect(job.timeline.slice(1).map((e) => e.at)).toEqual(Array.from({ length: 63 }, (_, k) => 37 + k));
  });
});
