import { describe, expect, it } from 'vitest';
import { purgeCheck } from '../../src/check/checks/purge-check.js';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { outcome } from './check-outcome.js';
import { ex, job } from './records.js';

/*
 * `lifecycle.purge-count` on saved records, at its edges (issue 39). A purge sent at 1000 ms and
 * answered at 1005 ms; `removed` is judged against the jobs of ours that could have been waiting
 * (submitted by its answer, neither final nor running when it was sent), once 30 s have passed
 * for submits still in flight; and a job of ours queued before it and seen IN_QUEUE after it was
 * left behind.
 */

const ID = 'lifecycle.purge-count';
const check = (records: JobstormRecord[], run: Partial<RunRecord> = {}) =>
  outcome(records, { checks: [purgeCheck()], run });

const purge = (removed: number | undefined, extra: Parameters<typeof ex>[4] = {}) =>
  ex('purge-queue', 1000, 200, removed === undefined ? undefined : { removed, status: 'completed' }, extra);
const submit = (id: string, at: number, took = 5) =>
  ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, took });
const shown = (id: string, at: number, status: string, op: 'status' | 'status-sync' = 'status') =>
  ex(
    op,
    at,
    200,
    job(id, status, status === 'COMPLETED' ? { delayTime: 1, executionTime: 2, output: {} } : {}),
    {
      jobId: id,
    },
  );

describe('the removed count', () => {
  it('counts a job submitted up to the purge`s answer, not one submitted after it', () => {
    expect(check([purge(1), submit('a', 1005)]).fired).toEqual({});
    const o = check([purge(1), submit('a', 1006)]);
    expect(o.fired).toEqual({ [ID]: 1 });
    expect(o.messages(ID)).toEqual([
      'purge-queue reported removed=1, but at most 0 jobs could have been waiting on this endpoint',
    ]);
  });

  it('counts only jobs we submitted, not one we only saw through its status', () => {
    expect(check([shown('x', 500, 'IN_QUEUE'), purge(1)]).fired).toEqual({ [ID]: 1 });
  });

  it('leaves out a job shown final before the purge was sent, not one shown final as it was sent', () => {
    expect(check([submit('a', 0), shown('a', 999, 'COMPLETED'), purge(1)]).fired).toEqual({ [ID]: 1 });
    expect(check([submit('a', 0), shown('a', 1000, 'COMPLETED'), purge(1)]).fired).toEqual({});
  });

  it('counts a job shown final and then queued again before the purge', () => {
    expect(
      check([submit('a', 0), shown('a', 500, 'COMPLETED'), shown('a', 800, 'IN_QUEUE'), purge(1)]).fired,
    ).toEqual({});
  });

  it('leaves out a job seen running before the purge was sent, not one first seen running as it was sent', () => {
    // A job is running by the end of the answer that shows it IN_PROGRESS.
    expect(check([submit('a', 0), shown('a', 994, 'IN_PROGRESS'), purge(1)]).fired).toEqual({ [ID]: 1 });
    expect(check([submit('a', 0), shown('a', 995, 'IN_PROGRESS'), purge(1)]).fired).toEqual({});
  });

  it('waits 30 s after the answer for submits still in flight, and not a millisecond more', () => {
    // The submit was sent as the purge was; its answer comes 30 s after the purge's, or 1 ms later.
    expect(check([purge(1), submit('a', 1000, 30_005)]).fired).toEqual({});
    expect(check([purge(1), submit('a', 1000, 30_006)]).fired).toEqual({ [ID]: 1 });
  });

  it('is judged once per purge', () => {
    const o = check([submit('a', 0), purge(1), ex('health', 40_000, 200, {}), ex('health', 41_000, 200, {})]);
    expect(o.judged[ID]).toBe(1);
  });

  it('is judged only on an endpoint the run owns alone, and only when the answer says how many', () => {
    expect(check([purge(5)], { ownsEndpoint: false }).judged[ID]).toBeUndefined();
    expect(check([purge(5)], { shard: '1/2' }).judged[ID]).toBeUndefined();
    expect(check([purge(undefined, { bodyUnread: true })]).judged[ID]).toBeUndefined();
  });
});

describe('a job left behind', () => {
  /** Counts are off: only what a status shows after the purge is judged. */
  const after = (records: JobstormRecord[]) => check(records, { ownsEndpoint: false });

  it('is a job accepted before the purge was sent and shown IN_QUEUE after it answered', () => {
    const o = after([submit('a', 0), purge(0), shown('a', 1006, 'IN_QUEUE')]);
    expect(o.fired).toEqual({ [ID]: 1 });
    expect(o.messages(ID)).toEqual([
      'job a was queued before the purge at 1000 ms and is still IN_QUEUE after it: purge must remove every waiting job',
    ]);
    const [finding] = o.result.violations[0]?.examples ?? [];
    expect(finding?.jobId).toBe('a');
    expect(finding?.evidence.timeline?.map((t) => t.op)).toEqual(['run', 'purge-queue']);
  });

  it('is seen by /status-sync too', () => {
    expect(after([submit('a', 0), purge(0), shown('a', 1006, 'IN_QUEUE', 'status-sync')]).fired).toEqual({
      [ID]: 1,
    });
  });

  it('is judged only for a status asked after the purge answered', () => {
    const o = after([submit('a', 0), purge(0), shown('a', 1005, 'IN_QUEUE')]);
    expect(o.judged[ID]).toBeUndefined();
  });

  it('is judged only for a job accepted before the purge was sent', () => {
    // Accepted at 1000 ms, as the purge was sent.
    const o = after([submit('a', 995), purge(0), shown('a', 1006, 'IN_QUEUE')]);
    expect(o.judged[ID]).toBeUndefined();
  });

  it('is judged only for a job not retried since its submit', () => {
    const retried = ex('retry', 500, 200, job('a', 'IN_QUEUE'), { jobId: 'a' });
    const o = after([
      submit('a', 0),
      shown('a', 400, 'FAILED'),
      retried,
      purge(0),
      shown('a', 1006, 'IN_QUEUE'),
    ]);
    expect(o.judged[ID]).toBeUndefined();
  });

  it('is not a job shown running after the purge', () => {
    const o = after([submit('a', 0), purge(0), shown('a', 1006, 'IN_PROGRESS')]);
    expect(o.fired).toEqual({});
    expect(o.judged[ID]).toBe(1);
  });

  it('is judged for none before any purge, nor for a job never submitted or a status that names none', () => {
    expect(after([submit('a', 0), shown('a', 500, 'IN_QUEUE')]).judged[ID]).toBeUndefined();
    expect(after([purge(0), shown('x', 1006, 'IN_QUEUE')]).judged[ID]).toBeUndefined();
    // The job is final at 0.1 s and folded by the purge's record; the status after it names no job.
    const unnamed = ex('status', 4000, 200, { status: 'IN_QUEUE' });
    const o = after([submit('a', 0), shown('a', 100, 'COMPLETED'), purge(0, { took: 2500 }), unnamed]);
    expect(o.judged[ID]).toBeUndefined();
  });
});
