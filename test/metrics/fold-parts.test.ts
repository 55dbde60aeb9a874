import { describe, expect, it } from 'vitest';
import { BucketCounts } from '../../src/fold/bucket-counts.js';
import { bodyField, bodyJobId, bodyMs } from '../../src/fold/job-body.js';
import { JobEventLog } from '../../src/fold/job-event-log.js';
import { JobEvents } from '../../src/fold/job-events.js';
import { JobSlots, SLOT_CHUNK_SEEN, SLOT_STREAM_READ, SLOT_WARM } from '../../src/fold/job-slots.js';

/*
 * The fold's parts on their own (issue 47): the bucket counts behind the coarse queue spans, the
 * slots of jobs in flight, the log that keeps the fold's reused events for a later reader, and the
 * defensive reads of a body. Each is driven directly, on both sides of its edges.
 */

/** Memory held in array buffers now (typed arrays): what these parts allocate. */
const arrayBytes = (): number => process.memoryUsage().arrayBuffers;
/** Far more than any of these parts needs here: a part that grew per call would pass it fast. */
const MEMORY_BOUND = 64 * 1024 * 1024;

function counted(buckets: readonly number[]): (bucket: number) => number {
  const counts = new BucketCounts();
  for (const b of buckets) counts.add(b);
  return counts.cumulative();
}

describe('BucketCounts', () => {
  it('counts nothing before anything is added', () => {
    const upTo = new BucketCounts().cumulative();
    expect([upTo(-5), upTo(0), upTo(1e6)]).toEqual([0, 0, 0]);
  });

  it('sums the counts of every bucket up to the one asked, all of them past the last', () => {
    const upTo = counted([10, 10, 12]);
    expect([upTo(9), upTo(10), upTo(11), upTo(12), upTo(13), upTo(5000)]).toEqual([0, 2, 2, 3, 3, 3]);
  });

  it('grows after its range, to the bucket just past its end', () => {
    // 1024 buckets from 0: bucket 1024 is the first past them.
    const upTo = counted([0, 1024, 1023]);
    expect([upTo(-1), upTo(0), upTo(1022), upTo(1023), upTo(1024), upTo(1025)]).toEqual([0, 1, 1, 2, 3, 3]);
  });

  it('grows after its range far past twice its length, its first bucket before 0', () => {
    // From -3000, bucket 5000 is 8000 past the first, beyond twice the first 1024.
    const upTo = counted([-3000, 5000, 4999]);
    expect([upTo(-3001), upTo(-3000), upTo(4998), upTo(4999), upTo(5000), upTo(9000)]).toEqual([
      0, 1, 1, 2, 3, 3,
    ]);
  });

  it('grows before its range, far and near', () => {
    const far = counted([0, -5000, -4999]);
    expect([far(-5001), far(-5000), far(-4999), far(-1), far(0), far(1)]).toEqual([0, 1, 2, 2, 3, 3]);
    const near = counted([100, 90, 100]);
    expect([near(89), near(90), near(99), near(100)]).toEqual([0, 1, 1, 3]);
  });

  it('keeps a reading as it was when taken', () => {
    const counts = new BucketCounts();
    counts.add(3);
    const before = counts.cumulative();
    counts.add(2);
    expect([before(2), before(3)]).toEqual([0, 1]);
    expect([counts.cumulative()(2), counts.cumulative()(3)]).toEqual([1, 2]);
  });

  it('holds memory for the buckets covered, not for how many times were counted', () => {
    const counts = new BucketCounts();
    const start = arrayBytes();
    for (let i = 0; i < 2000; i++) {
      counts.add(i % 7);
      expect(arrayBytes() - start).toBeLessThan(MEMORY_BOUND);
    }
    expect(counts.cumulative()(6)).toBe(2000);
  });
});

describe('JobSlots', () => {
  it('keeps each slot apart past its first 256, reusing the slots released', () => {
    const slots = new JobSlots();
    const start = arrayBytes();
    const taken: number[] = [];
    for (let i = 0; i < 600; i++) {
      taken.push(slots.take(10 * i, i % 3 === 0 ? SLOT_WARM : 0, i % 1000));
      expect(arrayBytes() - start).toBeLessThan(MEMORY_BOUND);
    }
    expect(taken).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(slots.inUse).toBe(600);
    for (const i of [0, 255, 256, 257, 511, 512, 599]) {
      expect(slots.openedAt(i), String(i)).toBe(10 * i);
      expect(slots.has(i, SLOT_WARM), String(i)).toBe(i % 3 === 0);
      expect(slots.shardOf(i), String(i)).toBe(i);
    }
    slots.mark(300, SLOT_STREAM_READ);
    expect([
      slots.has(300, SLOT_STREAM_READ),
      slots.has(300, SLOT_WARM),
      slots.has(300, SLOT_CHUNK_SEEN),
    ]).toEqual([true, true, false]);
    slots.release(257);
    slots.release(3);
    expect(slots.inUse).toBe(598);
    // The last released is taken first, with its new opening and flags.
    expect(slots.take(7000, SLOT_CHUNK_SEEN, 2)).toBe(3);
    expect([
      slots.openedAt(3),
      slots.has(3, SLOT_WARM),
      slots.has(3, SLOT_CHUNK_SEEN),
      slots.shardOf(3),
    ]).toEqual([7000, false, true, 2]);
    expect(slots.take(8000, 0, 0)).toBe(257);
    expect(slots.take(9000, 0, 0)).toBe(600);
    expect(slots.inUse).toBe(601);
  });
});

/** A JobEvents with every fact set, none at its default. */
function everything(): JobEvents {
  const ev = new JobEvents(500);
  ev.jobId = 'a';
  ev.shown = 'COMPLETED';
  ev.opened = 'retry';
  ev.reopened = true;
  ev.firstChunk = true;
  ev.final = 'COMPLETED';
  ev.lost = true;
  ev.warm = true;
  ev.sinceOpenMs = 42;
  ev.delayMs = 7;
  ev.executionMs = 9;
  ev.output = { openedAt: 3, parts: [] };
  ev.evicted = true;
  ev.evictedWarm = true;
  ev.evictedShard = '1/2';
  return ev;
}

/** Every fact of events as a plain object. */
const facts = (ev: JobEvents): Record<string, unknown> => Object.fromEntries(Object.entries(ev));

const NOTHING = {
  jobId: undefined,
  shown: undefined,
  opened: undefined,
  reopened: false,
  firstChunk: false,
  final: undefined,
  lost: false,
  warm: false,
  delayMs: undefined,
  executionMs: undefined,
  output: undefined,
  evicted: false,
  evictedWarm: false,
  evictedShard: undefined,
};

describe('JobEvents', () => {
  it('starts with nothing happened, and clear forgets every event', () => {
    expect(facts(new JobEvents(250))).toEqual({ ...NOTHING, warmupMs: 250, sinceOpenMs: 0 });
    const ev = everything();
    ev.clear();
    // sinceOpenMs is read only with a first chunk or a final state, which set it.
    expect(facts(ev)).toEqual({ ...NOTHING, warmupMs: 500, sinceOpenMs: expect.any(Number) as number });
  });

  it('copies every fact of another', () => {
    const from = everything();
    const to = new JobEvents(500);
    to.copyFrom(from);
    expect(facts(to)).toEqual(facts(from));
  });
});

describe('JobEventLog', () => {
  it('keeps a copy of each push, in order, until cleared, reusing its copies', () => {
    const log = new JobEventLog();
    expect(log.size).toBe(0);
    expect(() => log.at(0)).toThrow(RangeError);
    const ev = everything();
    log.push(ev);
    const expected = facts(ev);
    ev.clear();
    ev.jobId = 'b';
    ev.lost = true;
    log.push(ev);
    ev.clear();
    expect(log.size).toBe(2);
    const first = log.at(0);
    expect(facts(first)).toEqual(expected);
    expect(first).not.toBe(ev);
    expect([log.at(1).jobId, log.at(1).lost, log.at(1).final, log.at(1).warmupMs]).toEqual([
      'b',
      true,
      undefined,
      500,
    ]);
    expect(() => log.at(2)).toThrow(RangeError);
    expect(() => log.at(-1)).toThrow(RangeError);

    log.clear();
    expect(log.size).toBe(0);
    expect(() => log.at(0)).toThrow(RangeError);
    ev.jobId = 'c';
    log.push(ev);
    expect(log.size).toBe(1);
    expect(log.at(0)).toBe(first);
    expect([log.at(0).jobId, log.at(0).lost, log.at(0).opened]).toEqual(['c', false, undefined]);
    // The pool still holds a second copy, but nothing was pushed there since the clear.
    expect(() => log.at(1)).toThrow(RangeError);
  });
});

describe('job body reads', () => {
  it('reads a field of an object only, never of null, an array or a primitive', () => {
    expect(bodyField({ id: 'a' }, 'id')).toBe('a');
    expect(bodyField(null, 'id')).toBeUndefined();
    expect(bodyField(['a'], '0')).toBeUndefined();
    expect(bodyField('abc', 'length')).toBeUndefined();
    expect(bodyField(undefined, 'id')).toBeUndefined();
  });

  it('takes a job id only when it is a string', () => {
    expect(bodyJobId({ id: 'j-1' })).toBe('j-1');
    expect(bodyJobId({ id: 5 })).toBeUndefined();
    expect(bodyJobId({ id: null })).toBeUndefined();
    expect(bodyJobId(null)).toBeUndefined();
  });

  it('takes a time only when it is a finite number, 0 or more', () => {
    expect(bodyMs({ delayTime: 0 }, 'delayTime')).toBe(0);
    expect(bodyMs({ delayTime: 12.5 }, 'delayTime')).toBe(12.5);
    expect(bodyMs({ executionTime: 30 }, 'executionTime')).toBe(30);
    expect(bodyMs({ delayTime: 30 }, 'executionTime')).toBeUndefined();
    for (const bad of [-1, -0.5, Infinity, -Infinity, Number.NaN, '12', null, true]) {
      expect(bodyMs({ delayTime: bad }, 'delayTime'), String(bad)).toBeUndefined();
    }
  });
});
