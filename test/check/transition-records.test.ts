import { describe, expect, it } from 'vitest';
import { type CheckResult } from '../../src/check/checker.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, job, runRecord, sortByEnd } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The transition family on saved records, one rule at a time: each stream breaks (or keeps) one
 * rule, and the whole set of findings is asserted, so a mutant that fires the wrong id, or one id
 * too many, fails as surely as one that fires nothing.
 */
function result(records: JobstormRecord[]): CheckResult {
  const c = new FoldedChecker(runRecord());
  for (const r of sortByEnd(records)) c.add(r);
  return c.finish();
}

const fired = (records: JobstormRecord[]): Record<string, number> =>
  Object.fromEntries(result(records).violations.map((g) => [g.id, g.count]));

const submitted = (id: string): JobstormRecord => ex('run', 0, 200, job(id, 'IN_QUEUE'), { jobId: id });
const poll = (id: string, at: number, status: string, extra: Record<string, unknown> = {}): JobstormRecord =>
  ex('status', at, 200, job(id, status, extra), { jobId: id });
const done = { delayTime: 10, executionTime: 20, output: {} };

describe('retries', () => {
  it('a retry accepted for a COMPLETED job: lifecycle.retry-not-allowed, and nothing else', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'COMPLETED', done),
        ex('retry', 200, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
        poll('a', 300, 'COMPLETED', done),
      ]),
    ).toEqual({ 'lifecycle.retry-not-allowed': 1 });
  });

  it('a retry whose answer carries no status is judged as the retry it is', () => {
    // The answer also breaks the retry schema; the transition family's finding is the rule judged here.
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'COMPLETED', done),
        ex('retry', 200, 200, { id: 'a' }, { jobId: 'a' }),
      ]),
    ).toEqual({ 'lifecycle.retry-not-allowed': 1, 'schema.retry': 1 });
  });

  it('a retry after FAILED starts the job over: IN_QUEUE, then COMPLETED, is legal', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'FAILED', { error: 'boom' }),
        ex('retry', 200, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
        poll('a', 300, 'IN_PROGRESS'),
        poll('a', 400, 'COMPLETED', done),
      ]),
    ).toEqual({});
  });
});

describe('cancels', () => {
  it('a cancel answered CANCELLED, polled CANCELLED after: no finding', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'IN_PROGRESS'),
        ex('cancel', 200, 200, job('a', 'CANCELLED'), { jobId: 'a' }),
        poll('a', 300, 'CANCELLED'),
      ]),
    ).toEqual({});
  });

  it('a job answered CANCELLED to our cancel, then shown COMPLETED: transition.cancel-overridden', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'IN_PROGRESS'),
        ex('cancel', 200, 200, job('a', 'CANCELLED'), { jobId: 'a' }),
        poll('a', 300, 'COMPLETED', done),
      ]),
    ).toEqual({ 'transition.cancel-overridden': 1 });
  });

  it('shown CANCELLED (after a cancel answered IN_PROGRESS), then COMPLETED: transition.left-final', () => {
    // The cancel was asked but its answer promised nothing: the job leaving CANCELLED is the plain rule.
    expect(
      fired([
        submitted('a'),
        ex('cancel', 100, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }),
        poll('a', 200, 'CANCELLED'),
        poll('a', 300, 'COMPLETED', done),
      ]),
    ).toEqual({ 'transition.left-final': 1 });
  });

  it('a COMPLETED job whose cancel is answered CANCELLED: the answer itself left a final state', () => {
    const r = result([
      submitted('a'),
      poll('a', 100, 'COMPLETED', done),
      ex('cancel', 200, 200, job('a', 'CANCELLED'), { jobId: 'a' }),
    ]);
    expect(Object.fromEntries(r.violations.map((g) => [g.id, g.count]))).toEqual({
      'transition.left-final': 1,
    });
    expect(r.violations[0]?.examples[0]?.evidence.request).toMatch(/^POST \/cancel/);
  });

  it('CANCELLED with no cancel of ours, polled twice: one cancelled-unprompted for the job', () => {
    expect(fired([submitted('a'), poll('a', 100, 'CANCELLED'), poll('a', 200, 'CANCELLED')])).toEqual({
      'transition.cancelled-unprompted': 1,
    });
  });
});

describe('a CANCELLED raced by our own purge or cancel (found by the lifecycle fuzzer)', () => {
  // A lowPriority job waits in the queue; our /status-sync long-poll of it is answered CANCELLED at
  // 5 003 ms by a purge sent at 5 000 ms, whose own answer comes back at 5 010 ms: records arrive by
  // end time, so the CANCELLED is seen first.
  const waited = (id: string, end: number): JobstormRecord[] => [
    submitted(id),
    ex('status-sync', 100, 200, job(id, 'CANCELLED'), { jobId: id, took: end - 100 }),
  ];
  const purge = (sent: number, took = 10, removed = 1): JobstormRecord =>
    ex('purge-queue', sent, 200, { removed, status: 'completed' }, { took });

  it('a purge sent before the CANCELLED came back, answering after it, explains it: no finding', () => {
    expect(fired([...waited('a', 5003), purge(5000)])).toEqual({});
  });

  it('our cancel of the job, sent before the CANCELLED came back, explains it too; another job\'s does not', () => {
    const poll5 = ex('status', 5000, 200, job('a', 'CANCELLED'), { jobId: 'a', took: 3 });
    const cancel = (id: string): JobstormRecord =>
      ex('cancel', 4999, 200, job(id, 'CANCELLED'), { jobId: id, took: 20 });
    expect(fired([submitted('a'), poll5, cancel('a')])).toEqual({});
    expect(fired([submitted('a'), submitted('b'), poll5, cancel('b')])).toEqual({
      'transition.cancelled-unprompted': 1,
    });
  });

  it('a purge sent after the CANCELLED came back explains nothing: one finding', () => {
    expect(fired([...waited('a', 5003), purge(5004, 10, 0)])).toEqual({ 'transition.cancelled-unprompted': 1 });
  });

  it('explained, the job is followed on from CANCELLED: leaving it later is transition.left-final', () => {
    expect(fired([...waited('a', 5003), purge(5000, 10, 0), poll('a', 6000, 'COMPLETED', done)])).toEqual({
      'transition.left-final': 1,
    });
  });

  it('judged once settled (30 s of record time) or at the end, counted once either way', () => {
    const late = [...waited('a', 5003), submitted('b'), poll('b', 40_000, 'IN_QUEUE'), purge(39_000, 2000, 0)];
    const r = result(late);
    expect(Object.fromEntries(r.violations.map((g) => [g.id, g.count]))).toEqual({
      'transition.cancelled-unprompted': 1,
    });
    expect(r.coverage['transition.cancelled-unprompted']).toBe(2);
    expect(result([...waited('a', 5003), purge(5000)]).coverage['transition.cancelled-unprompted']).toBe(1);
  });
});

describe('what is judged', () => {
  it('a step back is transition.backwards and nothing else; one finding per job', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'IN_PROGRESS'),
        poll('a', 200, 'IN_QUEUE'),
        submitted('b'),
        poll('b', 100, 'COMPLETED', done),
        poll('b', 200, 'FAILED', { error: 'x' }),
      ]),
    ).toEqual({ 'transition.backwards': 1, 'transition.left-final': 1 });
  });

  it('an answer other than 200 is not an observation of the job, whatever its body says', () => {
    const r = result([
      submitted('a'),
      poll('a', 100, 'IN_PROGRESS'),
      ex('status', 200, 500, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 300, 429, job('a', 'CANCELLED'), { jobId: 'a' }),
    ]);
    expect(r.violations.filter((g) => g.id.startsWith('transition.'))).toEqual([]);
  });

  it('counts as judged only the answers that show a status', () => {
    const withStatus = result([
      submitted('a'),
      poll('a', 100, 'IN_PROGRESS'),
      poll('a', 200, 'COMPLETED', done),
    ]);
    const without = result([
      submitted('a'),
      poll('a', 100, 'IN_PROGRESS'),
      ex('status', 150, 200, { id: 'a' }, { jobId: 'a' }),
      poll('a', 200, 'COMPLETED', done),
    ]);
    expect(without.coverage['transition.backwards']).toBe(withStatus.coverage['transition.backwards']);
    expect(withStatus.coverage['transition.backwards']).toBeGreaterThan(0);
  });

  it('a retry refused by the server (400) is no retry: nothing is judged of it', () => {
    expect(
      fired([
        submitted('a'),
        poll('a', 100, 'COMPLETED', done),
        ex('retry', 200, 400, { error: 'only FAILED or TIMED_OUT jobs can be retried' }, { jobId: 'a' }),
      ]),
    ).toEqual({});
  });

  it('a 200 whose body was not kept is judged as showing no status, without failing', () => {
    // The body's absence is the schema's finding, not the transition family's.
    const noBody = ex('status', 150, 200, undefined, { jobId: 'a' });
    expect(
      fired([submitted('a'), poll('a', 100, 'IN_PROGRESS'), noBody, poll('a', 200, 'COMPLETED', done)]),
    ).toEqual({ 'schema.status': 1 });
  });
});

const RULES = [
  'transition.backwards',
  'transition.left-final',
  'transition.cancelled-unprompted',
  'transition.cancel-overridden',
  'lifecycle.retry-not-allowed',
] as const;

/** The rules of the family that judged `last`, after `before`: its observation counted once by each. */
function judgedBy(before: JobstormRecord[], last: JobstormRecord): string[] {
  const a = result(before).coverage;
  const b = result([...before, last]).coverage;
  return RULES.filter((id) => (b[id] ?? 0) - (a[id] ?? 0) === 1);
}

describe('each observation is judged by the rules it could break (coverage)', () => {
  const running = [submitted('a'), poll('a', 100, 'IN_PROGRESS')];

  it('a poll of a job we did not cancel: backwards, left-final, cancelled-unprompted', () => {
    expect(judgedBy(running, poll('a', 200, 'COMPLETED', done))).toEqual([
      'transition.backwards',
      'transition.left-final',
      'transition.cancelled-unprompted',
    ]);
  });

  it('a poll after our cancel was acknowledged: backwards and left-final only', () => {
    const asked = [...running, ex('cancel', 150, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' })];
    expect(judgedBy(asked, poll('a', 200, 'CANCELLED'))).toEqual([
      'transition.backwards',
      'transition.left-final',
    ]);
  });

  it('a poll after our cancel was answered CANCELLED: cancel-overridden too', () => {
    const answered = [...running, ex('cancel', 150, 200, job('a', 'CANCELLED'), { jobId: 'a' })];
    expect(judgedBy(answered, poll('a', 200, 'CANCELLED'))).toEqual([
      'transition.backwards',
      'transition.left-final',
      'transition.cancel-overridden',
    ]);
  });

  it('a cancel is judged by none of them; a retry by lifecycle.retry-not-allowed alone', () => {
    expect(judgedBy(running, ex('cancel', 150, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }))).toEqual([]);
    const failed = [submitted('a'), poll('a', 100, 'FAILED', { error: 'x' })];
    expect(judgedBy(failed, ex('retry', 200, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }))).toEqual([
      'lifecycle.retry-not-allowed',
    ]);
  });
});
