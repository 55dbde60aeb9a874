import { describe, expect, it } from 'vitest';
import { lifecycleCheck } from '../../src/check/checks/lifecycle-check.js';
import type { Tolerances } from '../../src/check/tolerances.js';
import type { ExchangeRecord, JobstormRecord } from '../../src/core/record.js';
import { ex, job, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The lifecycle family on saved records, rule by rule (issue 39: what the fault proofs leave to a
 * live run): each rule judged exactly on the edge of its tolerance, on both sides, with the whole
 * set of findings and the observations the family judged asserted, so a mutant that fires the
 * wrong id, fires twice, or judges what it should leave alone fails. The defaults: clock skew 1 s,
 * expiry grace 5 s, timeout grace 2 s, wait grace 2 s, timing slack 1 s.
 */

const MIN = 60_000;

interface Outcome {
  /** Every id that fired, of any family, with its count. */
  fired: Record<string, number>;
  /** The observations the lifecycle family judged, per id (ids that judged none left out). */
  judged: Record<string, number>;
  /** The first finding's message, per id. */
  messages: Record<string, string>;
}

function outcome(records: JobstormRecord[], tolerances: Partial<Tolerances> = {}): Outcome {
  const c = new FoldedChecker(runRecord(), { tolerances });
  for (const r of records) c.add(r);
  const result = c.finish();
  const own = new Set<string>(lifecycleCheck.ids);
  return {
    fired: Object.fromEntries(result.violations.map((g) => [g.id, g.count])),
    judged: Object.fromEntries(Object.entries(result.coverage).filter(([id, n]) => own.has(id) && n > 0)),
    messages: Object.fromEntries(result.violations.map((g) => [g.id, g.examples[0]?.message ?? ''])),
  };
}

const fired = (records: JobstormRecord[]): Record<string, number> => outcome(records).fired;
const judged = (records: JobstormRecord[]): Record<string, number> => outcome(records).judged;
/** The findings and the judged observations, without the messages. */
function counts(records: JobstormRecord[]): Omit<Outcome, 'messages'> {
  const { fired: f, judged: j } = outcome(records);
  return { fired: f, judged: j };
}

const done = { delayTime: 10, executionTime: 20, output: {} };
const submit = (id: string, at = 0, req: ExchangeRecord['req'] = {}): ExchangeRecord =>
  ex('run', at, 200, job(id, 'IN_QUEUE'), { jobId: id, req });
const poll = (
  id: string,
  at: number,
  status: string,
  body: Record<string, unknown> = {},
  extra: Partial<ExchangeRecord> & { took?: number } = {},
): ExchangeRecord => ex('status', at, 200, job(id, status, body), { jobId: id, ...extra });
const notFound = (id: string, at: number, op: 'status' | 'cancel' = 'status', took = 5): ExchangeRecord =>
  ex(op, at, 404, { error: 'not found' }, { jobId: id, took });
/** Another job whose /status answered 200: the endpoint serves /status, so a 404 of it is about the job. */
const served = [submit('b'), poll('b', 10, 'IN_QUEUE')];
const health = (at: number): ExchangeRecord =>
  ex('health', at, 200, {
    jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
    workers: { idle: 1, running: 0 },
  });

describe('lifecycle.lost', () => {
  it('is a /status 404 before the ttl ends, less the clock skew: on the edge it is not', () => {
    // ttl 10 s from the submit's send at 0: a 404 must end more than the skew (1 s) before it: 8 999 ms is lost, 9 000 ms is not.
    const lost = [...served, submit('a', 0, { ttl: 10_000 }), notFound('a', 8000, 'status', 999)];
    expect(counts(lost)).toEqual({ fired: { 'lifecycle.lost': 1 }, judged: { 'lifecycle.lost': 2 } });
    const edge = [...served, submit('a', 0, { ttl: 10_000 }), notFound('a', 8000, 'status', 1000)];
    expect(counts(edge)).toEqual({ fired: {}, judged: { 'lifecycle.lost': 2 } });
  });

  it('counts the retention from the last time the job was seen running, and says how early the 404 was', () => {
    // Seen IN_PROGRESS at 29 min: it must exist until 59 min, so a 404 at 31 min is 28 min early.
    const o = outcome([...served, submit('a'), poll('a', 29 * MIN, 'IN_PROGRESS'), notFound('a', 31 * MIN)]);
    expect(o.fired).toEqual({ 'lifecycle.lost': 1 });
    expect(o.messages['lifecycle.lost']).toBe(
      'status answered 404 for job a 1680 s before its ttl or retention could have ended, and no later answer showed the job again',
    );
  });

  it('counts the retention from the last time the job was seen queued', () => {
    const o = outcome([...served, submit('a'), poll('a', 29 * MIN, 'IN_QUEUE'), notFound('a', 31 * MIN)]);
    expect(o.fired).toEqual({ 'lifecycle.lost': 1 });
  });

  it('gives a /runsync job its minute of retention only: a 404 after it is no loss, one within it is', () => {
    const sync = ex('runsync', 0, 200, job('a', 'COMPLETED', done), { jobId: 'a' });
    expect(fired([...served, sync, notFound('a', 2 * MIN)])).toEqual({});
    const o = outcome([...served, sync, notFound('a', 50_000)]);
    expect(o.fired).toEqual({ 'lifecycle.lost': 1 });
    expect(o.messages['lifecycle.lost']).toMatch(/for job a 10 s before its ttl/);
  });

  it('is not found by a /status route that never answered 2xx', () => {
    // One job only: too few for route.missing, and nothing shows the route is served.
    expect(outcome([submit('a'), notFound('a', 5000)])).toEqual({
      fired: {},
      judged: { 'lifecycle.lost': 1 },
      messages: {},
    });
  });

  it('judges no 404 of a route found missing', () => {
    // The third job's 404 shows the /status route missing: it and the fourth are no job's.
    const records = ['a', 'b', 'c', 'd'].flatMap((id, i) => [
      submit(id, i * 100),
      notFound(id, i * 100 + 50),
    ]);
    expect(counts(records)).toEqual({ fired: { 'route.missing': 1 }, judged: { 'lifecycle.lost': 2 } });
  });

  it('is not found by a 404 of an action route not yet known to be served, though it is served later', () => {
    const records = [
      ...served,
      submit('a', 20),
      notFound('a', 100, 'cancel'),
      ex('cancel', 200, 200, job('b', 'CANCELLED'), { jobId: 'b' }),
    ];
    expect(counts(records)).toEqual({ fired: {}, judged: { 'lifecycle.lost': 2 } });
  });

  it('is one finding per job, though the job is folded and brought back by another 404', () => {
    const records = [
      ...served,
      submit('a'),
      poll('a', 1000, 'COMPLETED', done),
      notFound('a', 2000),
      // Past the 2 s hold: job a is folded (judged lost), then brought back by the next 404.
      health(4000),
      notFound('a', 5000),
    ];
    expect(counts(records)).toEqual({
      fired: { 'lifecycle.lost': 1 },
      judged: { 'lifecycle.lost': 4, 'lifecycle.timing-inconsistent': 1 },
    });
  });

  it('is judged for an answered lookup only: a /status that got no answer judges nothing', () => {
    const timedOut = ex('status', 100, undefined, undefined, { jobId: 'a', error: { kind: 'timeout' } });
    expect(judged([submit('a'), timedOut])).toEqual({});
  });

  it('judges an answer that names no job for no job', () => {
    // Job a was folded just before (health at 4 s): the nameless answer is not taken for it.
    const nameless = ex('status', 5000, 200, { status: 'COMPLETED' });
    expect(judged([submit('a'), poll('a', 1000, 'COMPLETED', done), health(4000), nameless])).toEqual({
      'lifecycle.lost': 1,
      'lifecycle.timing-inconsistent': 1,
    });
  });
});

describe('lifecycle.lost: an action that lost a job the service has', () => {
  /** Job b's cancel answered 200: /cancel is served, so a 404 from it is about the job. */
  const cancelServed = [submit('b'), ex('cancel', 10, 200, job('b', 'CANCELLED'), { jobId: 'b' })];

  it('is a served /cancel answering 404, then /status showing the job', () => {
    const shown = poll('a', 4000, 'IN_PROGRESS');
    const o = outcome([...cancelServed, submit('a', 1000), notFound('a', 3495, 'cancel'), shown]);
    expect(o.fired).toEqual({ 'lifecycle.lost': 1 });
    expect(o.messages['lifecycle.lost']).toBe(
      `POST cancel answered 404 for job a, 2.5 s after it was accepted, though status then still showed the job (IN_PROGRESS) (record ${String(shown.seq)}): the operation lost a job the service has`,
    );
  });

  it('names no status when the answer that showed the job has no body', () => {
    const shown = ex('status', 4000, 200, undefined, { jobId: 'a' });
    const o = outcome([...cancelServed, submit('a', 1000), notFound('a', 3495, 'cancel'), shown]);
    expect(o.fired).toEqual({ 'lifecycle.lost': 1, 'schema.status': 1 });
    expect(o.messages['lifecycle.lost']).toBe(
      `POST cancel answered 404 for job a, 2.5 s after it was accepted, though status then still showed the job (record ${String(shown.seq)}): the operation lost a job the service has`,
    );
  });

  it('is one finding per job, however often it happens', () => {
    const records = [
      ...cancelServed,
      submit('a', 1000),
      notFound('a', 2000, 'cancel'),
      poll('a', 3000, 'IN_PROGRESS'),
      notFound('a', 4000, 'cancel'),
      poll('a', 5000, 'IN_PROGRESS'),
    ];
    expect(fired(records)).toEqual({ 'lifecycle.lost': 1 });
  });
});

describe('lifecycle.ttl-ignored', () => {
  // ttl 10 s from the accept (the submit's end, at 5 ms), plus 5 s grace and 1 s skew: 16 005 ms.
  it('fires for a job served past its ttl and the grace, and not on the edge', () => {
    expect(outcome([submit('a', 0, { ttl: 10_000 }), poll('a', 16_005, 'IN_PROGRESS')])).toEqual({
      fired: {},
      judged: { 'lifecycle.lost': 1 },
      messages: {},
    });
    const o = outcome([submit('a', 0, { ttl: 10_000 }), poll('a', 16_006, 'IN_PROGRESS')]);
    expect(o.fired).toEqual({ 'lifecycle.ttl-ignored': 1 });
    expect(o.judged['lifecycle.ttl-ignored']).toBe(1);
    expect(o.messages['lifecycle.ttl-ignored']).toBe('job a still served 6 s after its ttl ended');
  });

  it('is not judged for a job we never submitted, though /status?ttl= gave it a deadline', () => {
    const records = [
      poll('x', 0, 'IN_PROGRESS', {}, { req: { statusTtl: 1000 } }),
      poll('x', 10_000, 'IN_PROGRESS'),
    ];
    expect(outcome(records)).toEqual({ fired: {}, judged: {}, messages: {} });
  });

  it('is judged on 200 answers only: an error answer long after the ttl serves nothing', () => {
    const failed = ex('status', 60_000, 500, { error: 'x' }, { jobId: 'a' });
    expect(fired([submit('a', 0, { ttl: 10_000 }), failed])).toEqual({ 'server.error': 1 });
  });
});

describe('lifecycle.retention-ignored', () => {
  // Final at 1 s (the send of the poll that showed it): 30 min of retention, plus 5 s grace and 1 s skew.
  const final = [submit('a'), poll('a', 1000, 'COMPLETED', done)];

  it('fires for a /run job served 30 min past its final state and the grace, and not on the edge', () => {
    expect(fired([...final, poll('a', 1000 + 30 * MIN + 6000, 'COMPLETED', done)])).toEqual({});
    const o = outcome([...final, poll('a', 1000 + 30 * MIN + 6001, 'COMPLETED', done)]);
    expect(o.fired).toEqual({ 'lifecycle.retention-ignored': 1 });
    expect(o.messages['lifecycle.retention-ignored']).toBe(
      "job a still served 6 s after its results' retention ended",
    );
  });

  it('gives a /runsync job 5 min at most', () => {
    const sync = ex('runsync', 0, 200, job('a', 'COMPLETED', done), { jobId: 'a' });
    expect(fired([sync, poll('a', 5 * MIN + 6000, 'COMPLETED', done)])).toEqual({});
    expect(fired([sync, poll('a', 5 * MIN + 6001, 'COMPLETED', done)])).toEqual({
      'lifecycle.retention-ignored': 1,
    });
  });

  it('is not judged once the job was shown unfinished again (that is the transition family’s finding)', () => {
    const records = [...final, poll('a', 2000, 'IN_QUEUE'), poll('a', 1000 + 30 * MIN + 6001, 'IN_QUEUE')];
    const o = outcome(records);
    expect(o.fired).toEqual({ 'transition.left-final': 1 });
    expect(o.judged['lifecycle.retention-ignored']).toBeUndefined();
  });
});

describe('lifecycle.timeout-early', () => {
  const limited = submit('a', 0, { executionTimeout: 10_000 });

  it('fires for TIMED_OUT reported before the executionTimeout less the skew, and not on the edge', () => {
    expect(fired([limited, poll('a', 12_000, 'TIMED_OUT', { executionTime: 9000, delayTime: 1 })])).toEqual(
      {},
    );
    const o = outcome([limited, poll('a', 12_000, 'TIMED_OUT', { executionTime: 8999, delayTime: 1 })]);
    expect(o.fired).toEqual({ 'lifecycle.timeout-early': 1 });
    expect(o.messages['lifecycle.timeout-early']).toBe(
      'job a TIMED_OUT after at most 8999 ms; its executionTimeout is 10000 ms',
    );
  });

  it('without a reported executionTime, bounds the run from the last time the job was seen queued', () => {
    // Queued at 3 s (the poll's send), TIMED_OUT by 7 005 ms: it ran 4 005 ms at most.
    const o = outcome([limited, poll('a', 3000, 'IN_QUEUE'), poll('a', 7000, 'TIMED_OUT')]);
    expect(o.fired).toEqual({ 'lifecycle.timeout-early': 1 });
    expect(o.messages['lifecycle.timeout-early']).toBe(
      'job a TIMED_OUT after at most 4005 ms; its executionTimeout is 10000 ms',
    );
  });
});

describe('lifecycle.timeout-ignored', () => {
  const limited = submit('a', 0, { executionTimeout: 10_000 });
  // executionTimeout 10 s, plus 2 s grace and 1 s skew: 13 000 ms.

  it('fires for a COMPLETED job that ran past the timeout and the grace, and not on the edge', () => {
    const edge = outcome([limited, poll('a', 14_000, 'COMPLETED', { ...done, executionTime: 13_000 })]);
    expect(edge.fired).toEqual({});
    expect(edge.judged['lifecycle.timeout-ignored']).toBe(1);
    const o = outcome([limited, poll('a', 14_000, 'COMPLETED', { ...done, executionTime: 13_001 })]);
    expect(o.fired).toEqual({ 'lifecycle.timeout-ignored': 1 });
    expect(o.messages['lifecycle.timeout-ignored']).toBe(
      'job a ran at least 13001 ms, past its executionTimeout of 10000 ms, without timing out',
    );
  });

  it('is not judged for a job that ran no longer than its executionTimeout', () => {
    const o = outcome([limited, poll('a', 14_000, 'COMPLETED', { ...done, executionTime: 10_000 })]);
    expect(o.judged['lifecycle.timeout-ignored']).toBeUndefined();
  });

  it('fires for a FAILED job as for a COMPLETED one', () => {
    const failed = poll('a', 14_000, 'FAILED', { error: 'x', delayTime: 1, executionTime: 13_001 });
    expect(fired([limited, failed])).toEqual({ 'lifecycle.timeout-ignored': 1 });
  });

  it('does not read the executionTime of a job we cancelled, nor how long ago it started', () => {
    const records = [
      limited,
      poll('a', 1000, 'IN_PROGRESS', {}, { took: 0 }),
      ex('cancel', 20_000, 200, job('a', 'CANCELLED', { delayTime: 1, executionTime: 13_001 }), {
        jobId: 'a',
      }),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({});
    expect(o.judged['lifecycle.timeout-ignored']).toBeUndefined();
  });

  it('fires for a job still IN_PROGRESS past the timeout since it was first seen running, once', () => {
    // First seen running at 1 s: 13 000 ms later is the edge.
    const running = poll('a', 1000, 'IN_PROGRESS', {}, { took: 0 });
    expect(fired([limited, running, poll('a', 14_000, 'IN_PROGRESS')])).toEqual({});
    const o = outcome([limited, running, poll('a', 14_001, 'IN_PROGRESS'), poll('a', 15_000, 'IN_PROGRESS')]);
    expect(o.fired).toEqual({ 'lifecycle.timeout-ignored': 1 });
    expect(o.judged['lifecycle.timeout-ignored']).toBe(2);
    expect(o.messages['lifecycle.timeout-ignored']).toBe(
      'job a ran at least 13001 ms, past its executionTimeout of 10000 ms, without timing out',
    );
  });
});

describe('lifecycle.runsync-wait-exceeded', () => {
  const sync = (id: string, took: number, extra: Partial<ExchangeRecord> = {}): ExchangeRecord =>
    ex('runsync', 0, 200, job(id, 'IN_PROGRESS'), { jobId: id, took, req: { wait: 2000 }, ...extra });

  it('fires for an answer later than the wait and its grace, and not on the edge', () => {
    const o = outcome([sync('s', 4000), sync('t', 4001)]);
    expect(o.fired).toEqual({ 'lifecycle.runsync-wait-exceeded': 1 });
    expect(o.judged['lifecycle.runsync-wait-exceeded']).toBe(2);
    expect(o.messages['lifecycle.runsync-wait-exceeded']).toBe(
      'runsync answered after 4001 ms; wait was 2000 ms',
    );
  });

  it('says how long the request waited for a connection, from 100 ms on', () => {
    expect(outcome([sync('s', 4200, { queuedMs: 99 })]).messages['lifecycle.runsync-wait-exceeded']).toBe(
      'runsync answered after 4101 ms; wait was 2000 ms',
    );
    expect(outcome([sync('s', 4200, { queuedMs: 100 })]).messages['lifecycle.runsync-wait-exceeded']).toBe(
      'runsync answered after 4100 ms (counted from when it went onto a connection, after 100 ms waiting for a free one); wait was 2000 ms',
    );
  });
});

describe('lifecycle.timing-inconsistent', () => {
  // Submitted at 1 s, COMPLETED by 4 005 ms: it existed 3 005 ms, plus 1 s of slack.
  const submitted = submit('a', 1000);
  const completed = (delayTime: number, executionTime: number): ExchangeRecord =>
    poll('a', 4000, 'COMPLETED', { output: {}, delayTime, executionTime });

  it('fires when delayTime + executionTime exceed the life we saw and the slack, and not on the edge', () => {
    expect(counts([submitted, completed(2000, 2005)])).toEqual({
      fired: {},
      judged: { 'lifecycle.lost': 1, 'lifecycle.timing-inconsistent': 1 },
    });
    const o = outcome([submitted, completed(2000, 2006)]);
    expect(o.fired).toEqual({ 'lifecycle.timing-inconsistent': 1 });
    expect(o.messages['lifecycle.timing-inconsistent']).toBe(
      'delayTime + executionTime = 4006 ms, but the job existed for at most 3005 ms as we saw it',
    );
  });

  it('is not judged for a job we never submitted', () => {
    const records = [
      poll('x', 0, 'IN_PROGRESS'),
      poll('x', 3000, 'COMPLETED', { output: {}, delayTime: 2000, executionTime: 1 }),
    ];
    expect(judged(records)).toEqual({});
  });

  it('is not judged for a retried job (its times are the last attempt’s)', () => {
    const records = [
      submitted,
      poll('a', 1100, 'FAILED', { error: 'x' }),
      ex('retry', 1200, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      poll('a', 3000, 'COMPLETED', { output: {}, delayTime: 20, executionTime: 1 }),
    ];
    expect(judged(records)['lifecycle.timing-inconsistent']).toBeUndefined();
  });

  it('is not judged without both times', () => {
    expect(judged([submitted, poll('a', 4000, 'COMPLETED', { output: {}, executionTime: 1 })])).toEqual({
      'lifecycle.lost': 1,
    });
    expect(judged([submitted, poll('a', 4000, 'COMPLETED', { output: {}, delayTime: 1 })])).toEqual({
      'lifecycle.lost': 1,
    });
  });
});

describe('lifecycle.purge-running', () => {
  const purge = (at: number, removed: number): ExchangeRecord =>
    ex('purge-queue', at, 200, { removed, status: 'completed' });

  it('fires once for a job seen IN_PROGRESS when we purged, then CANCELLED', () => {
    const records = [
      submit('a'),
      poll('a', 100, 'IN_PROGRESS'),
      purge(200, 0),
      poll('a', 300, 'CANCELLED'),
      poll('a', 400, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({ 'lifecycle.purge-running': 1 });
    expect(o.judged['lifecycle.purge-running']).toBe(2);
  });

  it('passes a job last seen IN_QUEUE when we purged', () => {
    const o = outcome([submit('a'), purge(200, 1), poll('a', 300, 'CANCELLED')]);
    expect(o.fired).toEqual({});
    expect(o.judged['lifecycle.purge-running']).toBe(1);
  });

  it('passes a job never seen in any state before the purge', () => {
    const nameless = ex('run', 0, 200, { id: 'a' }, { jobId: 'a' });
    const o = outcome([nameless, purge(200, 1), poll('a', 300, 'CANCELLED')]);
    expect(o.fired).toEqual({ 'schema.run': 1 });
    expect(o.judged['lifecycle.purge-running']).toBe(1);
  });

  it('is not judged for a job we asked to cancel before the purge', () => {
    const records = [
      submit('a'),
      poll('a', 100, 'IN_PROGRESS'),
      ex('cancel', 150, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }),
      purge(200, 0),
      poll('a', 300, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({});
    expect(o.judged['lifecycle.purge-running']).toBeUndefined();
  });

  // Found by the lifecycle fuzzer (issue 50) on the faithful emulator: seen running, purged around,
  // then cancelled by us; our cancel answered CANCELLED, which the purge had not done.
  it('is not judged for a job we asked to cancel after the purge', () => {
    const records = [
      submit('a'),
      poll('a', 100, 'IN_PROGRESS'),
      purge(200, 0),
      ex('cancel', 210, 200, job('a', 'CANCELLED'), { jobId: 'a' }),
      poll('a', 300, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({});
    expect(o.judged['lifecycle.purge-running']).toBeUndefined();
  });

  it('judges purges only, not our retries', () => {
    const records = [
      submit('a'),
      poll('a', 100, 'FAILED', { error: 'x' }),
      ex('retry', 150, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      purge(200, 1),
      poll('a', 300, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({});
    expect(o.judged['lifecycle.purge-running']).toBe(1);
  });

  it('stops at the first purge that found the job running', () => {
    const records = [
      submit('a'),
      poll('a', 100, 'IN_PROGRESS'),
      purge(200, 0),
      purge(250, 0),
      poll('a', 300, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({ 'lifecycle.purge-running': 1 });
    expect(o.judged['lifecycle.purge-running']).toBe(1);
  });

  it('goes on past a purge that found the job queued to one that found it running', () => {
    const records = [
      submit('a'),
      purge(200, 1),
      poll('a', 250, 'IN_PROGRESS'),
      purge(260, 0),
      poll('a', 300, 'CANCELLED'),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({ 'lifecycle.purge-running': 1 });
    expect(o.judged['lifecycle.purge-running']).toBe(2);
  });
});

describe('which answers the family reads', () => {
  it('judges a /runsync answer naming a job we know', () => {
    const records = [
      submit('a', 0, { executionTimeout: 10_000 }),
      ex('runsync', 14_000, 200, job('a', 'COMPLETED', { ...done, executionTime: 13_001 }), { jobId: 'a' }),
    ];
    expect(fired(records)).toEqual({ 'lifecycle.timeout-ignored': 1 });
  });

  it('does not judge a /run answer as an observation of a job we know', () => {
    const records = [
      submit('a', 0, { executionTimeout: 10_000 }),
      ex('run', 14_000, 200, job('a', 'COMPLETED', { ...done, executionTime: 13_001 }), { jobId: 'a' }),
    ];
    const o = outcome(records);
    expect(o.fired).toEqual({ 'schema.run': 1 });
    expect(o.judged).toEqual({});
  });
});
