import { describe, expect, it } from 'vitest';
import { JobAfterlife } from '../../src/check/job-afterlife.js';
import { newJobState } from '../../src/check/job-state.js';

/* The afterlife at its edges: a store of no rows, a job kept twice, a row taken back. */

const job = (id: string, submittedAt = 1) => {
  const j = newJobState(id);
  j.submittedAt = submittedAt;
  return j;
};

describe('JobAfterlife edges', () => {
  it('keeps nothing with a cap of 0', () => {
    const store = new JobAfterlife(0);
    store.set(job('a'));
    expect(store.size).toBe(0);
    expect(store.has('a')).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect([...store.values()]).toEqual([]);
  });

  it('keeps a job set twice once, as last set, in its newer place', () => {
    const store = new JobAfterlife(3);
    store.set(job('a', 1));
    store.set(job('b', 2));
    store.set(job('a', 3));
    expect(store.size).toBe(2);
    expect([...store.values()].map((j) => [j.id, j.submittedAt])).toEqual([
      ['b', 2],
      ['a', 3],
    ]);
  });

  it('leaves a hole for a row taken back, which a later job fills without pushing out a kept one', () => {
    const store = new JobAfterlife(2);
    store.set(job('a'));
    store.set(job('b'));
    expect(store.delete('a')).toBe(true);
    expect(store.delete('a')).toBe(false);
    store.set(job('c'));
    expect([...store.values()].map((j) => j.id)).toEqual(['b', 'c']);
    expect(store.has('b')).toBe(true);
    store.set(job('d'));
    expect([...store.values()].map((j) => j.id)).toEqual(['c', 'd']);
    expect(store.size).toBe(2);
  });

  it('lists no job for a hole', () => {
    const store = new JobAfterlife(3);
    for (const id of ['a', 'b', 'c']) store.set(job(id));
    store.take('b');
    expect([...store.values()].map((j) => j.id)).toEqual(['a', 'c']);
  });

  it('lists the jobs oldest first before it wraps round', () => {
    const store = new JobAfterlife(5);
    for (const id of ['a', 'b', 'c']) store.set(job(id));
    expect([...store.values()].map((j) => j.id)).toEqual(['a', 'b', 'c']);
  });
});
