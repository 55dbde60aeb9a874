import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts/queue/limits.js';
import { streamCheck } from '../../src/check/checks/stream-check.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { outcome } from './check-outcome.js';
import { ex, job } from './records.js';

/*
 * The `stream.*` rules on saved records, at their edges (issue 39): a chunk exactly at the limit,
 * each way a chunk names itself, the bare array's sign of a drained stream, and answers that name
 * no job the book knows.
 */

const only = (records: JobstormRecord[]) => outcome(records, { checks: [streamCheck] });

const submit = ex('run', 0, 200, job('j', 'IN_QUEUE'), { jobId: 'j' });
const completed = ex(
  'status',
  500,
  200,
  job('j', 'COMPLETED', { delayTime: 1, executionTime: 2, output: {} }),
  {
    jobId: 'j',
  },
);
const stream = (at: number, body: unknown, extra: Parameters<typeof ex>[4] = { jobId: 'j' }) =>
  ex('stream', at, 200, body, extra);
/** A chunk whose output the recorder cut: `bytes` long as JSON. */
const sized = (bytes: number) => ({ output: { $trimmed: true, length: bytes - 2, head: '' } });

describe('stream.chunk-too-large', () => {
  const limit = LIMITS.streamChunk.surelyRejected;

  it('fires for a chunk of exactly the limit, not one byte under it', () => {
    expect(only([submit, stream(100, [sized(limit - 1)])]).fired).toEqual({});
    const o = only([submit, stream(100, [sized(limit)])]);
    expect(o.fired).toEqual({ 'stream.chunk-too-large': 1 });
    expect(o.messages('stream.chunk-too-large')).toEqual([
      `a streamed chunk of ${String(limit)} bytes; the limit is 1 MB`,
    ]);
  });

  it('is judged once per answer that has chunks', () => {
    const o = only([submit, stream(100, [{ output: 'a' }, { output: 'b' }]), stream(200, [])]);
    expect(o.judged['stream.chunk-too-large']).toBe(1);
  });
});

describe('stream.duplicate-chunk', () => {
  it('knows a chunk by its metrics.stream_index, whatever its output', () => {
    const o = only([
      submit,
      stream(100, [{ output: 'a', metrics: { stream_index: 0 } }]),
      stream(200, [{ output: 'b', metrics: { stream_index: 0 } }]),
    ]);
    expect(o.fired).toEqual({ 'stream.duplicate-chunk': 1 });
    expect(o.messages('stream.duplicate-chunk')).toEqual(['chunk 0 of job j was delivered twice']);
  });

  it('knows a chunk by the index or the chunk number in its output', () => {
    const byIndex = only([
      submit,
      stream(100, [{ output: { index: 3 } }]),
      stream(200, [{ output: { index: 3 } }]),
    ]);
    expect(byIndex.messages('stream.duplicate-chunk')).toEqual(['chunk 3 of job j was delivered twice']);
    const byChunk = only([
      submit,
      stream(100, [{ output: { chunk: 5 } }]),
      stream(200, [{ output: { chunk: 5 } }]),
    ]);
    expect(byChunk.messages('stream.duplicate-chunk')).toEqual(['chunk 5 of job j was delivered twice']);
  });

  it('does not judge chunks that carry no identity (null, text, an object without an index)', () => {
    const o = only([
      submit,
      stream(100, [{ output: null }, { output: 'x' }, { output: { text: 'y' } }]),
      stream(200, [{ output: null }, { output: 'x' }]),
    ]);
    expect(o.fired).toEqual({});
    expect(o.judged['stream.duplicate-chunk']).toBeUndefined();
  });

  it('a retried job streams afresh: its chunk 0 again is no duplicate (found by the fuzzer)', () => {
    const chunk0 = [{ output: { index: 0 } }];
    const failed = ex('status', 150, 200, job('j', 'FAILED', { error: 'x' }), { jobId: 'j' });
    const retry = ex('retry', 200, 200, job('j', 'IN_QUEUE'), { jobId: 'j' });
    expect(only([submit, stream(100, chunk0), failed, retry, stream(300, chunk0)]).fired).toEqual({});
    expect(only([submit, stream(100, chunk0), failed, stream(300, chunk0)]).fired).toEqual({
      'stream.duplicate-chunk': 1,
    });
  });

  it('stops reading an answer at its first repeated chunk', () => {
    const again = { output: { index: 0 } };
    const o = only([submit, stream(100, [again, again, again, { output: { index: 1 } }])]);
    expect(o.fired).toEqual({ 'stream.duplicate-chunk': 1 });
    expect(o.judged['stream.duplicate-chunk']).toBe(2);
  });
});

describe('stream.after-final, with the bare array', () => {
  const late = stream(900, [{ output: { index: 7 } }]);

  it('takes an empty array after a final status as the stream drained', () => {
    const o = only([submit, completed, stream(600, []), late]);
    expect(o.fired).toEqual({ 'stream.after-final': 1 });
  });

  it('does not take an array that still had chunks, or an empty one before the job was final, as drained', () => {
    expect(only([submit, completed, stream(600, [{ output: { index: 6 } }]), late]).fired).toEqual({});
    const running = ex('status', 500, 200, job('j', 'IN_PROGRESS'), { jobId: 'j' });
    expect(only([submit, running, stream(600, []), late]).fired).toEqual({});
  });

  it('does not take an answer whose body was not read as drained', () => {
    const unread = stream(600, undefined, { jobId: 'j', bodyUnread: true });
    expect(only([submit, completed, unread, late]).fired).toEqual({});
  });
});

describe('stream answers of jobs the book does not hold', () => {
  it('judge only chunk sizes for a job never seen submitted', () => {
    const o = only([stream(100, [{ output: { index: 0 } }], { jobId: 'x' })]);
    expect(o.judged).toEqual({ 'route.missing': 1, 'request.method': 1, 'stream.chunk-too-large': 1 });
  });

  it('judge only chunk sizes for an answer that names no job, after another job was folded', () => {
    // The job is final at 0.5 s and folded 2 s later; the answer after that names no job.
    const later = ex('health', 5000, 200, { jobs: {}, workers: {} });
    const o = only([submit, completed, later, stream(6000, [{ output: { index: 0 } }], {})]);
    expect(o.judged['stream.chunk-too-large']).toBe(1);
    expect(o.judged['stream.duplicate-chunk']).toBeUndefined();
  });
});
