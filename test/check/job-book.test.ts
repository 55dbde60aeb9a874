import { describe, expect, it } from 'vitest';
import { JobBook } from '../../src/check/job-book.js';
import { entriesOf, observationsIn } from '../../src/check/job-timeline.js';

/*
 * A job's timeline is packed (src/check/job-timeline.ts: pairs of at and a code, unboxed) and grows
 * by copy while short (an array the size of its entries) and by push after
 * (bench/job-book-memory.ts). Either way it keeps every entry in order, and a long one keeps its
 * first entry and the latest; what the checks cite is rebuilt from it whole.
 */

const book = (): JobBook =>
  new JobBook({ webhookHoldMs: 45_000, holdMs: 2_000, maxJobs: 1000, maxAfterlife: 1000 });

describe('JobBook timeline', () => {
  it('keeps every entry in order across the switch from copy to push', () => {
    const b = book();
    const job = b.touch('a');
    expect(entriesOf(job.timeline)).toEqual([]);
    const seen: number[][] = [];
    for (let i = 0; i < 40; i++) {
      b.addTimeline(job, i + 0.25, 'status', 'IN_QUEUE');
      seen.push(entriesOf(job.timeline).map((e) => e.at));
    }
    seen.forEach((ats, i) => expect(ats).toEqual(Array.from({ length: i + 1 }, (_, k) => k + 0.25)));
    // Another job's timeline is its own: the empty one new jobs start from is shared, never added to.
    expect(entriesOf(b.touch('b').timeline)).toEqual([]);
  });

  it('keeps the first entry and the latest ones of a long timeline', () => {
    const b = book();
    const job = b.touch('a');
    for (let i = 0; i < 100; i++) b.addTimeline(job, i, 'status', 'IN_QUEUE');
    const entries = entriesOf(job.timeline);
    expect(entries).toHaveLength(64);
    expect(entries[0]?.at).toBe(0);
    expect(entries.slice(1).map((e) => e.at)).toEqual(Array.from({ length: 63 }, (_, k) => 37 + k));
  });

  it('gives back each entry as it was added: every op, every status, and actions without one', () => {
    const b = book();
    const job = b.touch('a');
    b.addTimeline(job, 1.5, 'run', 'IN_QUEUE');
    b.addTimeline(job, 2.25, 'status', 'IN_PROGRESS');
    b.addTimeline(job, 3, 'cancel');
    b.addTimeline(job, 4.125, 'webhook', 'CANCELLED');
    b.addTimeline(job, 5, 'retry');
    b.addTimeline(job, 6, 'stream', 'TIMED_OUT');
    b.addTimeline(job, 7, 'purge-queue');
    b.addTimeline(job, 8, 'CreateEndpoint', 'COMPLETED');
    b.addTimeline(job, 9, 'status-sync', 'FAILED');
    expect(entriesOf(job.timeline)).toEqual([
      { at: 1.5, op: 'run', status: 'IN_QUEUE' },
      { at: 2.25, op: 'status', status: 'IN_PROGRESS' },
      { at: 3, op: 'cancel' },
      { at: 4.125, op: 'webhook', status: 'CANCELLED' },
      { at: 5, op: 'retry' },
      { at: 6, op: 'stream', status: 'TIMED_OUT' },
      { at: 7, op: 'purge-queue' },
      { at: 8, op: 'CreateEndpoint', status: 'COMPLETED' },
      { at: 9, op: 'status-sync', status: 'FAILED' },
    ]);
    // The transition table's view: statuses, and of our actions only cancel, retry and purge.
    expect(observationsIn(job.timeline)).toEqual([
      { kind: 'status', status: 'IN_QUEUE' },
      { kind: 'status', status: 'IN_PROGRESS' },
      { kind: 'action', action: 'cancel' },
      { kind: 'status', status: 'CANCELLED' },
      { kind: 'action', action: 'retry' },
      { kind: 'status', status: 'TIMED_OUT' },
      { kind: 'action', action: 'purge' },
      { kind: 'status', status: 'COMPLETED' },
      { kind: 'status', status: 'FAILED' },
    ]);
  });

  it('keeps what a finding cited as it was when later entries come', () => {
    const b = book();
    const job = b.touch('a');
    for (let i = 0; i < 20; i++) b.addTimeline(job, i, 'status', 'IN_QUEUE');
    const cited = entriesOf(job.timeline);
    b.addTimeline(job, 20, 'status', 'COMPLETED');
    expect(cited).toHaveLength(20);
    expect(entriesOf(job.timeline)).toHaveLength(21);
  });
});
