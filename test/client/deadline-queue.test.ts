import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { DeadlineError, DeadlineQueue, type Deadline } from '../../src/client/deadline-queue.js';

/*
 * Issue 17: a finished exchange's deadline leaves the queue at once. Left in it until a sweep
 * passed it, it and what hung from it outlived the exchange, were promoted to the old generation
 * and brought mark-compacts that were the run's worst latencies. What is let go of is checked
 * with the real collector: a WeakRef to the deadline, then a full GC.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A WeakRef is held to the end of the task that made it: collect in a later one. */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return ref.deref() === undefined;
}

// Real time: these DeadlineQueues take no clock, so they sweep on the system clock's real timers.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineQueue', () => {
  it('lets go of a finished deadline at once, even behind one still in flight', async () => {
    const q = new DeadlineQueue(10_000);
    const slow = q.start(undefined);
    const ref = ((): WeakRef<Deadline> => {
      const d = q.start(undefined);
      q.finish(d);
      return new WeakRef(d);
    })();
    expect(await collected(ref)).toBe(true);
    expect(slow.aborted).toBe(false);
    q.finish(slow);
    q.close();
  });

  it('after the sweep has compacted it, still releases the right deadline and times out the one left', async () => {
    const q = new DeadlineQueue(60); // swept every 6 ms
    const early = Array.from({ length: 1500 }, () => q.start(undefined));
    const blocker = q.start(undefined);
    for (const d of early) q.finish(d);
    await sleep(20); // a sweep passes the 1,500 released and keeps the blocker alone
    const ref = ((): WeakRef<Deadline> => {
      const late = q.start(undefined);
      q.finish(late);
      expect(late.aborted).toBe(false);
      return new WeakRef(late);
    })();
    expect(await collected(ref)).toBe(true);
    const kept = q.start(undefined);
    // Waits for the sweep's abort itself, not 150 ms of real time that late timers may overrun.
    await vi.waitFor(() => expect(kept.aborted).toBe(true), { timeout: 10_000, interval: 5 });
    expect(blocker.aborted).toBe(true);
    expect(blocker.reason).toBeInstanceOf(DeadlineError);
    expect(kept.aborted).toBe(true);
    expect(early.some((d) => d.aborted)).toBe(false);
    // Finishing one the sweep already timed out changes nothing.
    q.finish(blocker);
    q.close();
  });
});
