import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { ExpiryQueue } from '../../src/emulator/expiry-queue.js';
import { Job } from '../../src/emulator/job.js';

/** The emulator's retention and ttl rule: a job leaves exactly at its `expiresAt`, never before. */
function setup(): { clock: ManualClock; q: ExpiryQueue; expired: [string, number][] } {
  const clock = new ManualClock();
  const expired: [string, number][] = [];
  const q = new ExpiryQueue(
    clock,
    () => clock.now(),
    (job) => expired.push([job.id, clock.now()]),
  );
  return { clock, q, expired };
}

const job = (id: string, expiresAt: number): Job =>
  new Job(id, {}, undefined, false, false, 1000, 0, expiresAt);

describe('expiry queue edges', () => {
  it('expires a job at its deadline exactly, not a millisecond before', () => {
    const { clock, q, expired } = setup();
    q.update(job('a', 100));
    clock.advance(99);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual([['a', 100]]);
    expect(clock.pending).toBe(0);
  });

  it('expires a job already past due at once, and a sweep expires what is due by now', () => {
    const { clock, q, expired } = setup();
    clock.advance(500);
    q.update(job('late', 300));
    clock.advance(0);
    expect(expired).toEqual([['late', 500]]);
    q.update(job('b', 600));
    q.update(job('c', 700));
    q.close();
    clock.advance(150);
    expect(expired).toHaveLength(1);
    q.sweep();
    expect(expired.map(([id]) => id)).toEqual(['late', 'b']);
    expect(q.size).toBe(1);
  });

  it('arms again after close, for the earliest job left', () => {
    const { clock, q, expired } = setup();
    q.update(job('a', 100));
    q.close();
    expect(clock.pending).toBe(0);
    q.update(job('b', 200));
    expect(clock.pending).toBe(1);
    clock.advance(200);
    expect(expired).toEqual([
      ['a', 100],
      ['b', 200],
    ]);
  });

  it('moves a deadline later or earlier and removes jobs from any place in the heap', () => {
    const { clock, q, expired } = setup();
    const jobs = [50, 10, 40, 20, 30, 60, 70].map((t, i) => job(String(i), t));
    for (const j of jobs) q.update(j);
    const first = jobs[1] as Job;
    first.expiresAt = 65;
    q.update(first);
    const last = jobs[6] as Job;
    last.expiresAt = 5;
    q.update(last);
    q.remove(jobs[3] as Job);
    q.remove(jobs[3] as Job);
    expect(jobs[3]?.heapIndex).toBe(-1);
    q.remove(jobs[5] as Job);
    expect(q.size).toBe(5);
    clock.advance(100);
    expect(expired).toEqual([
      ['6', 5],
      ['4', 30],
      ['2', 40],
      ['0', 50],
      ['1', 65],
    ]);
  });
});
