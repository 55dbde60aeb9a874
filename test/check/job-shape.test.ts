import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { JobBook } from '../../src/check/job-book.js';
import { newJobState, type JobState } from '../../src/check/job-state.js';

/*
 * V8 keeps a field that has only held small integers unboxed, and widens it for every object of
 * the shape the first time a double lands in it: from then on each job carries a boxed number per
 * such field (bench/job-book-memory.ts measured 32 bytes and two heap objects more per job). A
 * Float64Array gives doubles, so the job the afterlife brings back from its row is where that
 * happens. In a file of its own: no job has been brought back before this one's first.
 */

setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's own test intrinsic, made once.
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean;

/** The object of a job's rare facts (private: its shape is what is tested here). */
function rareOf(job: JobState): object {
  return Reflect.get(job, 'rare') as object;
}

function typical(id: string): JobState {
  const job = newJobState(id);
  job.submittedAt = 1.5;
  job.last = 'IN_PROGRESS';
  job.fired = 1;
  job.retries = 1;
  return job;
}

describe('JobState shape', () => {
  it('is the same for jobs made before and after a job came back from the afterlife', () => {
    const before = typical('before');
    const made = Array.from({ length: 50 }, (_, i) => typical(`made-${String(i)}`));
    expect(sameShape(before, made[49] ?? before)).toBe(true);

    const book = new JobBook({ webhookHoldMs: 45_000, holdMs: 2_000, maxJobs: 100, maxAfterlife: 100 });
    const late = book.touch('late');
    late.submittedAt = 0.5;
    late.last = 'COMPLETED';
    late.fired = 5;
    late.retries = 2;
    book.holdUntilFinal(late, 1);
    book.advance(Infinity, () => undefined);
    const back = book.touch('late');
    expect([back.fired, back.retries, back.last]).toEqual([5, 2, 'COMPLETED']);

    const after = typical('after');
    expect(sameShape(back, after)).toBe(true);
    expect(sameShape(before, after)).toBe(true);
    // Its retry count lives in the rare facts: their shape too.
    expect(sameShape(rareOf(back), rareOf(after))).toBe(true);
    expect(sameShape(rareOf(before), rareOf(after))).toBe(true);
  });
});
