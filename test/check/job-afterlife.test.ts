import { describe, expect, it } from 'vitest';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { AFTERLIFE_FIELDS, JobAfterlife } from '../../src/check/job-afterlife.js';
import { JobBook } from '../../src/check/job-book.js';
import { firstTime } from '../../src/check/fired-rules.js';
import { newJobState, type JobField, type JobState } from '../../src/check/job-state.js';
import { appendEntry } from '../../src/check/job-timeline.js';

/*
 * Folded jobs are kept as packed rows (src/check/job-afterlife.ts), not as objects: what comes back
 * must be what went in, field by field, for every field the row keeps, and the defaults for what it
 * lets go; the store keeps the last `cap` jobs folded, oldest out first.
 */

/** A job with every field away from its default (times fractional, as record times are). */
function fullJob(id: string, variant = 0): JobState {
  const job = newJobState(id);
  job.via = variant % 2 === 0 ? 'run' : 'runsync';
  job.submittedAt = 10.125 + variant;
  job.acceptedAt = 11.25 + variant;
  job.ttl = 60_000.5;
  job.ttlDeadline = 70_000.75;
  job.executionTimeout = 5_000;
  job.webhook = true;
  job.sequenceBroken = variant % 3 === 0;
  job.timeline = appendEntry(job.timeline, 11.25, 'run', 'IN_QUEUE');
  job.last = JOB_STATUSES[variant % JOB_STATUSES.length];
  job.finalAt = 99.5 + variant;
  job.finalRecord = { type: 'exchange', seq: 3 } as unknown as ExchangeRecord;
  job.lostCandidate = { type: 'exchange', seq: 4 } as unknown as ExchangeRecord;
  job.startedBy = 20.0625;
  job.queuedAt = 15.5;
  job.cancelAnsweredCancelled = true;
  job.deliveries = [{ at: 1, answered: 2, record: { type: 'webhook' } as never }];
  job.chunkKeys = new Set(['a']);
  job.streamDrained = true;
  job.retireAfter = 200;
  job.held = true;
  job.retries = 2 + variant;
  job.fired = (1 << 29) | 5 | variant;
  job.shown = JOB_STATUSES[(variant + 1) % JOB_STATUSES.length];
  job.cancelAsked = true;
  return job;
}

function expectKept(got: JobState | undefined, put: JobState): void {
  expect(got).toBeDefined();
  if (!got) return;
  const blank = newJobState(put.id);
  for (const [field, kept] of Object.entries(AFTERLIFE_FIELDS)) {
    const key = field as JobField;
    // The word itself differs by the hold; every field packed in it is compared on its own.
    if (kept === 'word') continue;
    if (kept === 'let go') expect(got[key], `${field} is let go`).toEqual(blank[key]);
    else expect(got[key], `${field} is kept`).toEqual(put[key]);
  }
}

describe('JobAfterlife', () => {
  it('gives back every field it keeps, and the defaults of those it lets go', () => {
    const store = new JobAfterlife(100);
    const jobs = Array.from({ length: 12 }, (_, i) => fullJob(`job-${String(i)}`, i));
    for (const job of jobs) store.set(job);
    for (const job of jobs) expectKept(store.get(job.id), job);
    // And a job that had nothing set: every time unknown, no status, no flag.
    const bare = newJobState('bare');
    store.set(bare);
    expect(store.get('bare')).toEqual(bare);
  });

  it('keeps the last `cap` jobs folded, oldest out first, and lists them oldest first', () => {
    const store = new JobAfterlife(3);
    for (let i = 0; i < 5; i++) store.set(fullJob(`j${String(i)}`, i));
    expect(store.size).toBe(3);
    expect(store.has('j0') || store.has('j1')).toBe(false);
    expect([...store.values()].map((j) => j.id)).toEqual(['j2', 'j3', 'j4']);
    expectKept(store.get('j2'), fullJob('j2', 2));
  });

  it('take hands the job back and forgets it; kept again, it is the newest', () => {
    const store = new JobAfterlife(3);
    for (let i = 0; i < 3; i++) store.set(fullJob(`j${String(i)}`, i));
    const back = store.take('j0');
    expectKept(back, fullJob('j0', 0));
    expect(store.has('j0')).toBe(false);
    expect(store.take('j0')).toBeUndefined();
    if (back) store.set(back);
    store.set(fullJob('j3', 3));
    // j0 came back as the newest; j1 was the oldest when j3 came.
    expect([...store.values()].map((j) => j.id)).toEqual(['j2', 'j0', 'j3']);
  });

  it('grows its rows up to its cap and keeps them whole across the growth', () => {
    const store = new JobAfterlife(2500);
    for (let i = 0; i < 3000; i++) store.set(fullJob(`g${String(i)}`, i));
    expect(store.size).toBe(2500);
    expect(store.has('g499')).toBe(false);
    for (const i of [500, 1023, 1024, 2047, 2048, 2999])
      expectKept(store.get(`g${String(i)}`), fullJob(`g${String(i)}`, i));
  });
});

describe('JobBook with its afterlife', () => {
  it('a job brought back by a late poll keeps what it was, and the rules that already fired for it', () => {
    const book = new JobBook({ webhookHoldMs: 10, holdMs: 10, maxJobs: 100, maxAfterlife: 100 });
    const job = book.touch('late');
    job.submittedAt = 1.5;
    job.acceptedAt = 2.5;
    job.last = 'COMPLETED';
    job.finalAt = 5.25;
    job.shown = 'COMPLETED';
    expect(firstTime(job, 'lifecycle.ttl-ignored')).toBe(true);
    book.holdUntilFinal(job, 5.25);
    const folded: string[] = [];
    book.advance(100, (j) => folded.push(j.id));
    expect(folded).toEqual(['late']);
    expect(book.size).toBe(0);
    // Listed while folded: as it was.
    expect([...book.known()].map((j) => [j.id, j.last, j.finalAt])).toEqual([['late', 'COMPLETED', 5.25]]);
    const back = book.get('late');
    expect(back).not.toBe(job);
    expect(
      back && [back.submittedAt, back.acceptedAt, back.last, back.finalAt, back.shown, back.held],
    ).toEqual([1.5, 2.5, 'COMPLETED', 5.25, 'COMPLETED', true]);
    if (back) {
      expect(firstTime(back, 'lifecycle.ttl-ignored')).toBe(false);
      expect(firstTime(back, 'lifecycle.retention-ignored')).toBe(true);
    }
    expect(book.size).toBe(1);
  });
});
