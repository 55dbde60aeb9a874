import { describe, expect, it } from 'vitest';
import { JOB_STATUSES } from '../../src/core/job-status.js';
import type { ExchangeRecord } from '../../src/core/record.js';
import { AFTERLIFE_FIELDS } from '../../src/check/job-afterlife.js';
import { newJobState, type JobField, type JobState } from '../../src/check/job-state.js';
import { appendEntry, entriesOf } from '../../src/check/job-timeline.js';

/*
 * A job packs its statuses and flags into one integer, its times into one array and its rare facts
 * into an object made on first use (src/check/job-state.ts). Each field must still read as a plain
 * field would: what was written, and nothing another field wrote.
 */

type Field = Exclude<JobField, 'id' | 'packed'>;

/** A value away from the default for every field but `id` and the word the flags live in. */
const SET: { [K in Field]: JobState[K] } = {
  via: 'runsync',
  submittedAt: 10.125,
  acceptedAt: 11.25,
  ttl: 60_000.5,
  ttlDeadline: 70_000.75,
  executionTimeout: 5_000,
  webhook: true,
  sequenceBroken: true,
  timeline: appendEntry([], 11.25, 'run', 'IN_QUEUE'),
  last: 'TIMED_OUT',
  finalAt: 99.5,
  finalRecord: { type: 'exchange', seq: 3 } as unknown as ExchangeRecord,
  lostCandidate: { type: 'exchange', seq: 4 } as unknown as ExchangeRecord,
  startedBy: 20.0625,
  queuedAt: 15.5,
  cancelAnsweredCancelled: true,
  deliveries: [{ at: 1, answered: 2, record: { type: 'webhook' } as never }],
  chunkKeys: new Set(['a']),
  streamDrained: true,
  retireAfter: 200,
  held: true,
  retries: 3,
  fired: (1 << 29) | 5,
  shown: 'CANCELLED',
  cancelAsked: true,
};

function read(job: JobState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of Object.keys(SET) as Field[]) out[f] = job[f];
  return out;
}

function write<K extends Field>(job: JobState, f: K, v: JobState[K]): void {
  job[f] = v;
}

describe('JobState', () => {
  it('lists every field the afterlife places (a new field is tested here too)', () => {
    expect(Object.keys(SET).sort()).toEqual(
      Object.keys(AFTERLIFE_FIELDS)
        .filter((f) => f !== 'id' && f !== 'packed')
        .sort(),
    );
  });

  it('reads back each field written, and every other field as it was', () => {
    const blank = read(newJobState('blank'));
    expect(blank).toMatchObject({
      via: undefined,
      last: undefined,
      shown: undefined,
      submittedAt: undefined,
      ttl: undefined,
      webhook: false,
      held: false,
      retries: 0,
      deliveries: [],
    });
    for (const f of Object.keys(SET) as Field[]) {
      const job = newJobState('j');
      write(job, f, SET[f]);
      expect(read(job), f).toEqual({ ...blank, [f]: SET[f] });
    }
  });

  it('keeps every field when all are written, in any order, and each can go back to its default', () => {
    const fields = Object.keys(SET) as Field[];
    const blank = read(newJobState('blank'));
    for (const order of [fields, [...fields].reverse()]) {
      const job = newJobState('j');
      for (const f of order) write(job, f, SET[f]);
      expect(read(job)).toEqual(SET);
      for (const f of order) write(job, f, blank[f] as JobState[typeof f]);
      expect(read(job)).toEqual(blank);
    }
  });

  it('keeps its times apart from its timeline, short or past the cap', () => {
    const job = newJobState('j');
    job.submittedAt = 1.5;
    job.retireAfter = 2.5;
    for (let k = 0; k < 100; k++) {
      job.append(10 + k, k === 0 ? 'run' : 'status', k === 0 ? 'IN_QUEUE' : 'IN_PROGRESS');
      if (k === 3) job.queuedAt = 3.5;
    }
    expect([job.submittedAt, job.queuedAt, job.retireAfter, job.acceptedAt]).toEqual([
      1.5,
      3.5,
      2.5,
      undefined,
    ]);
    const entries = entriesOf(job.timeline);
    // The first entry and the latest 63 (TIMELINE_MAX), none of them a time.
    expect(entries.map((e) => e.at)).toEqual([10, ...Array.from({ length: 63 }, (_, k) => 47 + k)]);
    expect(entries[0]).toEqual({ at: 10, op: 'run', status: 'IN_QUEUE' });
    // The timeline read is a copy: changing it leaves the job's as it was.
    (job.timeline as number[]).push(1, 2);
    expect(job.timeline.length).toBe(128);
  });

  it('packs every status in both status fields', () => {
    for (const last of [undefined, ...JOB_STATUSES]) {
      for (const shown of [undefined, ...JOB_STATUSES]) {
        const job = newJobState('j');
        job.via = 'run';
        job.last = last;
        job.shown = shown;
        job.cancelAsked = true;
        expect([job.via, job.last, job.shown, job.cancelAsked]).toEqual(['run', last, shown, true]);
      }
    }
  });
});
