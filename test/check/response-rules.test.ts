import { describe, expect, it } from 'vitest';
import { MANAGEMENT_OPERATION_CONTRACTS } from '../../contracts/management/operations.js';
import { QUEUE_OPERATION_CONTRACTS } from '../../contracts/queue/operations.js';
import { responseCheck } from '../../src/check/checks/response-check.js';
import { fastValidator } from '../../src/check/fast-validator.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { outcome } from './check-outcome.js';
import { ex, job } from './records.js';

/*
 * `status.<op>`, `server.error` and `schema.<op>` on saved records, at their edges (issue 39):
 * the management operations' 404s, the route watch's answers, bodies we did not get or cut, and
 * what a contract finding says.
 */

const only = (records: JobstormRecord[]) => outcome(records, { checks: [responseCheck] });

const health = {
  jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
  workers: { idle: 1, running: 0 },
};

describe('status codes of the management operations', () => {
  it('a 404 or 405 from StartPod or CreateEndpoint is the contract`s, not a route the watch knows of', () => {
    const o = only([ex('StartPod', 0, 404, { error: 'x' }), ex('CreateEndpoint', 10, 405, { error: 'x' })]);
    expect(o.fired).toEqual({ 'status.StartPod': 1, 'status.CreateEndpoint': 1 });
    expect(o.messages('status.StartPod')).toEqual([
      'StartPod answered 404, which the contract does not allow (allowed: 200, 400, 401)',
    ]);
  });
});

describe('answers of a route the target lacks', () => {
  it('stay the route watch`s after it found the route missing, even once the route answered', () => {
    const o = only([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      // The endpoint answers, so a 404 from /health is a missing route.
      ex('health', 10, 404, { error: 'no route' }),
      ex('health', 20, 200, health),
      // Not an error body: the contract would say so, were it the contract's answer.
      ex('health', 30, 404, {}),
    ]);
    expect(o.fired).toEqual({ 'route.missing': 1 });
    expect(o.judged['status.health']).toBe(1);
    expect(o.judged['schema.health']).toBe(1);
  });
});

describe('schema.<op> of an answer without a body', () => {
  it('is a finding for every operation but StartPod`s 200, which has no body to give', () => {
    const o = only([
      ex('StartPod', 0, 200),
      ex('StartPod', 10, 400),
      ex('run', 20, 200),
      ex('status', 30, 200, undefined, { jobId: 'a', error: { kind: 'timeout' } }),
    ]);
    expect(o.fired).toEqual({ 'schema.StartPod': 1, 'schema.run': 1, 'schema.status': 1 });
    expect(o.judged['schema.StartPod']).toBe(2);
    expect(o.messages('schema.StartPod')).toEqual(['StartPod 400 body is not JSON']);
    expect(o.messages('schema.run')).toEqual(['run 200 body is not JSON']);
    expect(o.messages('schema.status')).toEqual(['status 200 body is not JSON (timeout)']);
  });
});

describe('bodies with strings cut by the recorder', () => {
  const cut = { $trimmed: true, length: 300, head: 'j'.repeat(64) };

  it('are judged with each cut string restored to a string (its head)', () => {
    const o = only([ex('run', 0, 200, { id: cut, status: 'IN_QUEUE' }, { resBytes: 340 })]);
    expect(o.fired).toEqual({});
    expect(o.judged['schema.run']).toBe(1);
  });

  it('still break the contract where the rest of the body does', () => {
    const o = only([ex('run', 0, 200, { id: cut, status: 'IN_PROGRESS' }, { resBytes: 340 })]);
    expect(o.fired).toEqual({ 'schema.run': 1 });
    expect(o.messages('schema.run')[0]).toMatch(/^run 200 body breaks the contract: status: /);
  });
});

describe('what a contract finding says', () => {
  it('names the first three issues, each with its path', () => {
    const o = only([ex('health', 0, 200, { jobs: {}, workers: {} })]);
    expect(o.fired).toEqual({ 'schema.health': 1 });
    const [message] = o.messages('schema.health');
    expect(message).toMatch(
      /^health 200 body breaks the contract: jobs\.completed: [^;]+; jobs\.failed: [^;]+; jobs\.inProgress: [^;]+$/,
    );
  });

  it('names the body itself when the issue is the whole body', () => {
    const o = only([ex('health', 0, 200, 'ok')]);
    expect(o.messages('schema.health')[0]).toMatch(/^health 200 body breaks the contract: \(body\): [^;]+$/);
  });
});

describe('requests that got no answer', () => {
  it('judge no status code and no body', () => {
    const o = only([
      ex('run', 0, undefined, undefined, { error: { kind: 'timeout' } }),
      ex('StartPod', 10, undefined, undefined, { error: { kind: 'refused' } }),
    ]);
    expect(o.fired).toEqual({});
    expect(o.judged).toEqual({});
  });
});

describe('the fast validator', () => {
  it('has a validator for every response schema of the contracts (so the zod parse is the slow path only)', () => {
    const all = [
      ...Object.entries(QUEUE_OPERATION_CONTRACTS),
      ...Object.entries(MANAGEMENT_OPERATION_CONTRACTS),
    ];
    for (const [op, c] of all)
      for (const [code, schema] of Object.entries(c.responses))
        expect(fastValidator(schema), `${op} ${code}`).toBeDefined();
  });
});
