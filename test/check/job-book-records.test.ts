import { describe, expect, it } from 'vitest';
import type { JobState } from '../../src/check/job-book.js';
import { entriesOf } from '../../src/check/job-timeline.js';
import type { JobstormRecord, RunRecord, WebhookRecord } from '../../src/core/record.js';
import { ex, job, runRecord, webhook } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * What each record does to its job in the checks' book (src/check/book-records.ts), read by a
 * check of the test's own at the end, before the book is emptied: submissions, the statuses shown,
 * our cancels, retries and purges, deliveries, and when a final job is let go.
 */

interface Seen {
  jobs: Map<string, JobState>;
  folded: string[];
}

function book(records: JobstormRecord[], run: RunRecord = runRecord()): Seen {
  const seen: Seen = { jobs: new Map(), folded: [] };
  const c = new FoldedChecker(run, {
    checks: [
      {
        name: 'reader',
        ids: [],
        jobDone: (j) => void seen.folded.push(j.id),
        finish(ctx) {
          for (const j of ctx.jobs.known()) seen.jobs.set(j.id, j);
        },
      },
    ],
  });
  for (const r of records) c.add(r);
  c.finish();
  return seen;
}

const jobOf = (records: JobstormRecord[], id = 'a', run?: RunRecord): JobState => {
  const j = book(records, run).jobs.get(id);
  if (!j) throw new Error(`no job ${id} in the book`);
  return j;
};

const submit = (at: number, req: NonNullable<JobstormRecord & { type: 'exchange' }>['req'] = {}, id = 'a') =>
  ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, req, took: 5 });
const status = (at: number, s: string, id = 'a', extra = {}) =>
  ex('status', at, 200, job(id, s, extra), { jobId: id, took: 5 });
const done = (at: number, id = 'a') =>
  status(at, 'COMPLETED', id, { delayTime: 1, executionTime: 1, output: {} });

describe('a submission', () => {
  it('gives the job its route, send and accept times, ttl, executionTimeout and webhook', () => {
    const j = jobOf([submit(10, { ttl: 60_000, executionTimeout: 5_000, webhook: 'http://127.0.0.1:1/h' })]);
    expect([j.via, j.submittedAt, j.acceptedAt, j.ttl, j.executionTimeout, j.webhook]).toEqual([
      'run',
      10,
      15,
      60_000,
      5_000,
      true,
    ]);
    const sync = jobOf([ex('runsync', 10, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' })]);
    expect([sync.via, sync.webhook, sync.ttl, sync.executionTimeout]).toEqual([
      'runsync',
      false,
      undefined,
      undefined,
    ]);
  });

  it('is taken once: a later accept of the same id changes nothing', () => {
    const j = jobOf([submit(10, { ttl: 1000 }), submit(20, { ttl: 2000 })]);
    expect([j.submittedAt, j.acceptedAt, j.ttl]).toEqual([10, 15, 1000]);
  });

  it('is taken once even when the fold opens the id again after it closed it', () => {
    const j = jobOf([submit(0, { ttl: 1000 }), done(10), submit(20, { ttl: 2000 })]);
    expect([j.submittedAt, j.ttl]).toEqual([0, 1000]);
  });

  it('is not taken from an answer that did not open the job', () => {
    const j = jobOf([status(10, 'IN_QUEUE')]);
    expect([j.submittedAt, j.acceptedAt, j.via]).toEqual([undefined, undefined, undefined]);
  });

  it('is not one unless answered 200', () => {
    expect(
      book([ex('run', 10, 500, job('a', 'IN_QUEUE'), { jobId: 'a' })]).jobs.get('a')?.submittedAt,
    ).toBeUndefined();
  });

  it('claims the deliveries that came to its webhook before it was accepted', () => {
    const url = 'http://127.0.0.1:1/hook/a';
    const early: WebhookRecord = {
      ...webhook(5, 'x', 200, { status: 'COMPLETED' }),
      path: '/hook/a',
      adaptedShape: 'no-id',
    };
    delete (early as { jobId?: string }).jobId;
    const j = jobOf([early, submit(0, { webhook: url })]);
    expect(j.deliveries.map((d) => [d.at, d.answered, d.status])).toEqual([[5, 200, 'COMPLETED']]);
  });
});

describe('the statuses shown', () => {
  it('set when it was last seen queued, first seen running, first seen final, and its last status', () => {
    const final = done(300);
    const j = jobOf([
      submit(0),
      status(100, 'IN_QUEUE'),
      status(50, 'IN_QUEUE'),
      status(200, 'IN_PROGRESS'),
      status(250, 'IN_PROGRESS'),
      final,
      done(400),
    ]);
    expect([j.queuedAt, j.startedBy, j.finalAt, j.last, j.shown]).toEqual([
      100,
      205,
      300,
      'COMPLETED',
      'COMPLETED',
    ]);
    expect(j.finalRecord).toBe(final);
    expect(entriesOf(j.timeline).map((e) => [e.at, e.op, e.status])).toEqual([
      [5, 'run', 'IN_QUEUE'],
      [105, 'status', 'IN_QUEUE'],
      [55, 'status', 'IN_QUEUE'],
      [205, 'status', 'IN_PROGRESS'],
      [255, 'status', 'IN_PROGRESS'],
      [305, 'status', 'COMPLETED'],
      [405, 'status', 'COMPLETED'],
    ]);
  });

  it('read only from answers of 200, and never from an OpenAI completion or a request list', () => {
    const j = jobOf([
      submit(0),
      ex('status', 10, 500, job('a', 'COMPLETED'), { jobId: 'a' }),
      ex('status', 20, undefined, undefined, { jobId: 'a' }),
      ex('openai', 30, 200, job('a', 'COMPLETED'), { jobId: 'a' }),
      ex('requests', 40, 200, job('a', 'COMPLETED'), { jobId: 'a' }),
    ]);
    expect([j.last, j.finalAt]).toEqual(['IN_QUEUE', undefined]);
  });

  it('are read only for records that name a job, and an unanswered request makes none', () => {
    const seen = book([
      ex('health', 0, 200, { jobs: {}, workers: {} }),
      ex('status', 10, undefined, undefined, { jobId: 'q' }),
    ]);
    expect([...seen.jobs.keys()]).toEqual([]);
  });

  it('give a /status?ttl= answered 200 a new deadline from its send', () => {
    const asked = (code: number) =>
      ex('status', 100, code, code === 200 ? job('a', 'IN_QUEUE') : undefined, {
        jobId: 'a',
        req: { statusTtl: 5000 },
      });
    expect(jobOf([submit(0), asked(200)]).ttlDeadline).toBe(5100);
    expect(jobOf([submit(0), asked(404)]).ttlDeadline).toBeUndefined();
    const cancel = ex('cancel', 100, 200, job('a', 'CANCELLED'), { jobId: 'a', req: { statusTtl: 5000 } });
    expect(jobOf([submit(0), cancel]).ttlDeadline).toBeUndefined();
  });

  it('mark the step that broke the transition table', () => {
    expect(jobOf([submit(0), status(10, 'IN_PROGRESS')]).sequenceBroken).toBe(false);
    expect(jobOf([submit(0), done(10), status(20, 'IN_PROGRESS')]).sequenceBroken).toBe(true);
  });
});

describe('our actions', () => {
  it('a cancel is asked, and answered CANCELLED or not', () => {
    const cancel = (s: string) => ex('cancel', 10, 200, job('a', s), { jobId: 'a' });
    const answered = jobOf([submit(0), cancel('CANCELLED')]);
    expect([answered.cancelAsked, answered.cancelAnsweredCancelled]).toEqual([true, true]);
    const acknowledged = jobOf([submit(0), cancel('IN_PROGRESS')]);
    expect([acknowledged.cancelAsked, acknowledged.cancelAnsweredCancelled]).toEqual([true, false]);
    expect(entriesOf(acknowledged.timeline).map((e) => [e.at, e.op, e.status])).toEqual([
      [5, 'run', 'IN_QUEUE'],
      [10, 'cancel', undefined],
      [15, 'cancel', 'IN_PROGRESS'],
    ]);
  });

  it('a retry starts a new attempt: queued from its send, nothing final or started, one retry more', () => {
    const j = jobOf([
      submit(0),
      status(10, 'IN_PROGRESS'),
      status(20, 'FAILED', 'a', { error: 'x' }),
      ex('retry', 100, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
    ]);
    expect([j.finalAt, j.finalRecord, j.startedBy, j.queuedAt, j.retries, j.retireAfter, j.last]).toEqual([
      undefined,
      undefined,
      undefined,
      100,
      1,
      undefined,
      'IN_QUEUE',
    ]);
  });

  it('a retry of a job shown COMPLETED breaks the transition table', () => {
    const retry = ex('retry', 100, 200, job('a', 'IN_QUEUE'), { jobId: 'a' });
    expect(jobOf([submit(0), done(10), retry]).sequenceBroken).toBe(true);
    // The retry itself is the break, even when its answer shows no status.
    const bare = ex('retry', 100, 200, {}, { jobId: 'a' });
    expect(jobOf([submit(0), done(10), bare]).sequenceBroken).toBe(true);
  });

  it('a retry answered without a status leaves the job unfinished, held until it shows final again', () => {
    const failed = status(10, 'FAILED', 'a', { error: 'x' });
    const retry = ex('retry', 100, 200, {}, { jobId: 'a' });
    const folded: string[] = [];
    const c = new FoldedChecker(runRecord(), {
      checks: [{ name: 'r', ids: [], jobDone: (j) => void folded.push(j.id) }],
    });
    for (const r of [submit(0), failed, retry, ex('health', 10_000, 200)]) c.add(r);
    // Not folded for the final state it showed before the retry, nor for the one the retry did not show.
    expect(folded).toEqual([]);
  });

  it('a purge answered 200 reaches every job not yet final, and no other', () => {
    const seen = book([
      submit(0, {}, 'a'),
      submit(0, {}, 'b'),
      done(10, 'b'),
      ex('purge-queue', 50, 500),
      ex('purge-queue', 100, 200, { removed: 1, status: 'completed' }),
    ]);
    const ops = (id: string) => entriesOf(seen.jobs.get(id)?.timeline ?? []).map((e) => e.op);
    expect(ops('a')).toEqual(['run', 'purge-queue']);
    expect(seen.jobs.get('a')?.cancelAsked).toBe(true);
    expect(ops('b')).toEqual(['run', 'status']);
  });
});

describe('a 404 that may mean the job was lost', () => {
  /** Records each /status 404 as the job's lost candidate, as the lifecycle check does. */
  function candidates(records: JobstormRecord[]): boolean {
    let kept = false;
    const c = new FoldedChecker(runRecord(), {
      checks: [
        {
          name: 'lost',
          ids: [],
          add(r, ctx) {
            if (r.type === 'exchange' && r.status === 404 && r.jobId) {
              const j = ctx.jobs.touch(r.jobId);
              j.lostCandidate = r;
            }
          },
          finish(ctx) {
            kept = ctx.jobs.get('a')?.lostCandidate !== undefined;
          },
        },
      ],
    });
    for (const r of records) c.add(r);
    c.finish();
    return kept;
  }
  const gone = ex('status', 50, 404, undefined, { jobId: 'a' });

  it('is cleared by a later answer showing the job, but not by an accept of its id', () => {
    expect(candidates([submit(0), gone])).toBe(true);
    expect(candidates([submit(0), gone, status(100, 'IN_PROGRESS')])).toBe(false);
    expect(candidates([submit(0), gone, submit(100)])).toBe(true);
    expect(candidates([submit(0), gone, ex('runsync', 100, 200, job('a', 'IN_QUEUE'), { jobId: 'a' })])).toBe(
      true,
    );
  });
});

describe('webhook deliveries', () => {
  it('go to the job they name, made if unknown', () => {
    const seen = book([webhook(10, 'a', 500, { status: 'FAILED' }), webhook(20, 'a', 200, 'text')]);
    expect(seen.jobs.get('a')?.deliveries.map((d) => [d.at, d.answered, d.status])).toEqual([
      [10, 500, 'FAILED'],
      [20, 200, undefined],
    ]);
    const bare: WebhookRecord = { ...webhook(30, 'b', 200, undefined) };
    delete (bare as { body?: unknown }).body;
    expect(
      book([bare])
        .jobs.get('b')
        ?.deliveries.map((d) => d.status),
    ).toEqual([undefined]);
  });

  it('without a job, go by their URL when the run adapts to bodies that name none', () => {
    const noId = (adapted: boolean): WebhookRecord => {
      const w: WebhookRecord = { ...webhook(50, 'x', 200, { status: 'COMPLETED' }), path: '/hook/a' };
      delete (w as { jobId?: string }).jobId;
      return adapted ? { ...w, adaptedShape: 'no-id' } : w;
    };
    const sub = submit(0, { webhook: 'http://127.0.0.1:1/hook/a' });
    expect(jobOf([sub, noId(true)]).deliveries).toHaveLength(1);
    const strict = book([sub, noId(false)]);
    expect([...strict.jobs.keys()]).toEqual(['a']);
    expect(strict.jobs.get('a')?.deliveries).toHaveLength(0);
  });
});

describe('a final job', () => {
  it('is let go 2 s after the answer that showed it final, 55 s with a webhook, and the others at the end', () => {
    const folded = (until: number, req = {}) =>
      book([submit(0, req), done(100), ex('health', until - 5, 200)]).folded;
    // The answer showing it final ended at 105.
    expect(folded(2104)).toEqual(['a']);
    const early = book([submit(0), done(100), ex('health', 2099, 200), submit(2200, {}, 'z')]);
    expect(early.folded).toEqual(['a', 'z']);
    const hooked = { webhook: 'http://127.0.0.1:1/h' };
    const seen: string[] = [];
    const c = new FoldedChecker(runRecord(), {
      checks: [{ name: 'r', ids: [], jobDone: (j) => void seen.push(j.id) }],
    });
    for (const r of [submit(0, hooked), done(100), ex('health', 55_099, 200)]) c.add(r);
    expect(seen).toEqual([]);
    c.add(ex('health', 55_100, 200));
    expect(seen).toEqual(['a']);
  });
});
