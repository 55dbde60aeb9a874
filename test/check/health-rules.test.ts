import { describe, expect, it } from 'vitest';
import { healthCheck } from '../../src/check/checks/health-check.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import { familyOutcome, type FamilyOutcome } from './check-outcome.js';
import { ex, job, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The /health rules on saved records, each at its edges: `health.negative` (no counter below 0),
 * `health.counter-decreased` (completed, failed and retried never go down between reads that did
 * not overlap in flight) and `health.jobs-mismatch` (on an endpoint we own, /health never counts
 * more jobs than we had sent submits and retries by the time it answered).
 */

const IDS = ['health.negative', 'health.counter-decreased', 'health.jobs-mismatch'] as const;

const check = (records: JobstormRecord[], run?: RunRecord): FamilyOutcome =>
  familyOutcome(records, healthCheck(), IDS, run);

type Jobs = Partial<Record<'completed' | 'failed' | 'retried' | 'inQueue' | 'inProgress', unknown>>;

/** A /health read sent at `at` and answered 10 ms later. */
const health = (at: number, jobs: Jobs, workers: Record<string, unknown> = { idle: 1, running: 0 }) =>
  ex(
    'health',
    at,
    200,
    { jobs: { completed: 0, failed: 0, retried: 0, inQueue: 0, inProgress: 0, ...jobs }, workers },
    {
      took: 10,
    },
  );

const submit = (at: number, op: 'run' | 'runsync' | 'retry' = 'run', status = 200): ExchangeRecord =>
  ex(op, at, status, job(`s${String(at)}`, 'IN_QUEUE'), { jobId: `s${String(at)}` });

describe('health.negative', () => {
  it('are the ids of the health family, with counter-decreased and jobs-mismatch', () => {
    expect(healthCheck().ids).toEqual(IDS);
  });

  it('fires on a job or worker counter below 0, naming the first', () => {
    const bad = health(0, { inQueue: -1, failed: -2 });
    const out = check([bad, health(100, {}, { idle: -3, running: 0 }), health(200, {})]);
    expect(out.fired).toEqual({ 'health.negative': 2 });
    expect(out.judged['health.negative']).toBe(3);
    expect(out.cited[0]).toBe(bad.seq);
    expect(out.messages).toEqual(['/health reported jobs.failed = -2', '/health reported workers.idle = -3']);
  });

  it('reads numbers only, and 0 is not negative', () => {
    const out = check([health(0, { inQueue: '-1' }, { idle: 0, running: '-2' })]);
    expect(out.fired).toEqual({});
    expect(out.judged['health.negative']).toBe(1);
  });

  it('judges 200 /health answers with both jobs and workers objects only', () => {
    const body = (b: unknown, status = 200, op: 'health' | 'status' = 'health') => ex(op, 0, status, b);
    const negative = { jobs: { inQueue: -1 }, workers: { idle: 0 } };
    const out = check([
      body(negative, 500),
      body(negative, 200, 'status'),
      body({ jobs: null, workers: {} }),
      body({ jobs: {}, workers: null }),
      body({ jobs: 3, workers: {} }),
      body({ jobs: {}, workers: 'x' }),
      body({ jobs: {} }),
      body(null),
      body(undefined),
    ]);
    expect(out).toEqual({ fired: {}, judged: {}, messages: [], cited: [] });
    expect(check([body(negative)]).fired).toEqual({ 'health.negative': 1 });
  });
});

/** On an endpoint shared with others, where the submit count is not judged. */
const decreased = (records: JobstormRecord[]) => check(records, runRecord({ ownsEndpoint: false }));

describe('health.counter-decreased', () => {
  it('fires when completed, failed or retried go down, naming the first of them', () => {
    const later = health(100, { completed: 4, failed: 1, retried: 2 });
    const out = decreased([health(0, { completed: 5, failed: 2, retried: 3 }), later]);
    expect(out.fired).toEqual({ 'health.counter-decreased': 1 });
    expect(out.cited).toEqual([later.seq]);
    expect(out.messages).toEqual(['/health jobs.completed went down from 5 to 4']);
    expect(decreased([health(0, { failed: 2 }), health(100, { failed: 1 })]).messages).toEqual([
      '/health jobs.failed went down from 2 to 1',
    ]);
    expect(decreased([health(0, { retried: 2 }), health(100, { retried: 1 })]).messages).toEqual([
      '/health jobs.retried went down from 2 to 1',
    ]);
  });

  it('lets the queue and running counts go down, and a counter stay', () => {
    const out = decreased([
      health(0, { completed: 5, inQueue: 9, inProgress: 4 }),
      health(100, { completed: 5, inQueue: 0, inProgress: 0 }),
    ]);
    expect(out.fired).toEqual({});
    expect(out.judged).toEqual({
      'health.negative': 2,
      'health.counter-decreased': 1,
    });
  });

  it('compares only reads that did not overlap in flight: the later sent after the earlier ended', () => {
    // The first read ends at 10 ms.
    expect(decreased([health(0, { completed: 5 }), health(10, { completed: 4 })]).judged).not.toHaveProperty(
      'health.counter-decreased',
    );
    expect(decreased([health(0, { completed: 5 }), health(11, { completed: 4 })]).fired).toEqual({
      'health.counter-decreased': 1,
    });
  });

  it('compares with the read sent last, not with one that arrived last but was sent earlier', () => {
    // Sent at 0 and 100; the one sent at 50 ends after the one sent at 100 began and is not kept.
    const out = decreased([
      health(0, { completed: 1 }),
      health(100, { completed: 5 }),
      health(50, { completed: 3 }),
      health(200, { completed: 4 }),
    ]);
    expect(out.messages).toEqual(['/health jobs.completed went down from 5 to 4']);
  });

  it('keeps the earlier of two reads sent at the same time', () => {
    const out = decreased([
      health(0, { completed: 5 }),
      health(0, { completed: 1 }),
      health(100, { completed: 4 }),
    ]);
    expect(out.messages).toEqual(['/health jobs.completed went down from 5 to 4']);
  });

  it('reads a counter the body lacks, or gives as text, as 0', () => {
    const out = decreased([health(0, { completed: 5 }), health(100, { completed: 'five' })]);
    expect(out.messages).toEqual(['/health jobs.completed went down from 5 to 0']);
  });
});

describe('health.jobs-mismatch', () => {
  it('fires when /health counts more jobs than were sent by the time it answered', () => {
    // Two submits; the read counts completed + failed + queued + running = 3.
    const read = health(1000, { completed: 1, failed: 1, inQueue: 1, inProgress: 0, retried: 7 });
    const out = check([submit(0), submit(10), read]);
    expect(out.fired).toEqual({ 'health.jobs-mismatch': 1 });
    expect(out.cited).toEqual([read.seq]);
    expect(out.messages).toEqual([
      '/health counts 3 jobs (completed + failed + queued + running), but we had sent only 2 submits and retries to this endpoint by then',
    ]);
  });

  it('counts a runsync answered 404 as a job: its ttl ended it while we waited (found by the fuzzer)', () => {
    // The job was queued (and counted) when /health read it; the runsync came back 404 later.
    const read = health(1000, { inQueue: 2 });
    expect(check([submit(0), ex('runsync', 10, 404, { error: 'not found' }, { took: 11_000 }), read]).fired).toEqual({});
    expect(check([submit(0), ex('status', 10, 404, { error: 'not found' }, { took: 5 }), read]).fired).toEqual({
      'health.jobs-mismatch': 1,
    });
  });

  it('passes when the count equals the submits, running jobs included', () => {
    const out = check([
      submit(0),
      submit(10, 'runsync'),
      submit(20, 'retry'),
      health(1000, { inProgress: 2, completed: 1 }),
    ]);
    expect(out.fired).toEqual({});
    expect(out.judged['health.jobs-mismatch']).toBe(1);
    expect(check([submit(0), submit(10), health(1000, { inQueue: 1, inProgress: 2 })]).fired).toEqual({
      'health.jobs-mismatch': 1,
    });
  });

  it('counts a submit by its 100 ms bucket, up to the bucket holding the end of the read', () => {
    // The read ends at 1010: the bucket of 1000-1099 counts (an upper bound), 1100 on does not.
    const read = () => health(1000, { completed: 1 });
    expect(check([submit(1099), read()]).fired).toEqual({});
    expect(check([submit(1100), read()]).fired).toEqual({ 'health.jobs-mismatch': 1 });
    // A read that ends exactly where a bucket starts counts that bucket.
    expect(check([submit(1050), health(990, { completed: 1 })]).fired).toEqual({});
  });

  it('orders the buckets by send time, whatever order the submits arrived in', () => {
    expect(check([submit(5000), submit(0), health(1000, { completed: 1 })]).fired).toEqual({});
  });

  it('adds up the submits of one bucket', () => {
    expect(check([submit(0), submit(1), health(1000, { completed: 2 })]).fired).toEqual({});
  });

  it('counts only accepted submits and retries', () => {
    const out = check([
      submit(0, 'run', 400),
      submit(10, 'run', 500),
      ex('status', 20, 200, job('s0', 'IN_QUEUE'), { jobId: 's0' }),
      ex('cancel', 30, 200, job('s0', 'CANCELLED'), { jobId: 's0' }),
      health(1000, { completed: 1 }),
    ]);
    expect(out.fired).toEqual({ 'health.jobs-mismatch': 1 });
  });

  it('counts a submit sent and never answered (our timeout, a cut read), not one that never connected', () => {
    const unanswered = (at: number, kind: 'timeout' | 'reset' | 'refused') =>
      ex('runsync', at, undefined, undefined, { error: { kind } });
    expect(check([submit(0), unanswered(10, 'timeout'), health(1000, { completed: 2 })]).fired).toEqual({});
    expect(check([submit(0), unanswered(10, 'reset'), health(1000, { completed: 2 })]).fired).toEqual({});
    expect(check([submit(0), unanswered(10, 'refused'), health(1000, { completed: 2 })]).fired).toEqual({
      'health.jobs-mismatch': 1,
    });
  });

  it('counts an OpenAI completion admitted, failed with 5xx or cut off, but not one refused', () => {
    const openai = (at: number, status: number | undefined, method = 'POST') =>
      ex('openai', at, status, undefined, { method });
    expect(
      check([openai(0, 200), openai(1, 500), openai(2, undefined), health(1000, { completed: 3 })]).fired,
    ).toEqual({});
    expect(
      check([openai(0, 400), openai(1, 200, 'GET'), openai(2, 499), health(1000, { completed: 1 })]).fired,
    ).toEqual({
      'health.jobs-mismatch': 1,
    });
  });

  it('reports the first read that counts too many, and judges no read after it', () => {
    const first = health(1000, { completed: 2 });
    const out = check([submit(0), first, health(2000, { completed: 3 }), health(3000, { completed: 3 })]);
    expect(out.fired).toEqual({ 'health.jobs-mismatch': 1 });
    expect(out.cited).toEqual([first.seq]);
    expect(out.judged['health.jobs-mismatch']).toBe(1);
  });

  it('judges every read when none counts too many', () => {
    const out = check([submit(0), health(1000, { completed: 1 }), health(2000, { completed: 1 })]);
    expect(out.judged['health.jobs-mismatch']).toBe(2);
  });

  it('is judged only on an endpoint we own, in a run that is not a shard', () => {
    const records = () => [submit(0), health(1000, { completed: 3 })];
    expect(check(records(), runRecord({ ownsEndpoint: false })).judged).not.toHaveProperty(
      'health.jobs-mismatch',
    );
    expect(check(records(), runRecord({ shard: '1/2' })).judged).not.toHaveProperty('health.jobs-mismatch');
    expect(check(records()).fired).toEqual({ 'health.jobs-mismatch': 1 });
  });

  it('keeps at most 10,000 reads to judge', () => {
    const c = new FoldedChecker(runRecord(), { checks: [healthCheck()] });
    const reads: JobstormRecord[] = [];
    for (let i = 0; i < 10_000; i++) reads.push(health(i * 20, {}));
    for (const r of reads) c.add(r);
    c.add(health(300_000, { completed: 1 }));
    const result = c.finish();
    expect(result.violations).toEqual([]);
    expect(result.coverage['health.jobs-mismatch']).toBe(10_000);
  });
});
