import { describe, expect, it } from 'vitest';
import { responseCheck } from '../../src/check/checks/response-check.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { outcome } from './check-outcome.js';
import { ex, job, webhook } from './records.js';

/*
 * `route.missing` and `request.method` on saved records (issue 39): which answers count as
 * observations of a route, and what the finding says the run does next.
 */

const watched = (records: JobstormRecord[], strict = false) =>
  outcome(records, { checks: [responseCheck], run: { strict } });

describe('observations of routes', () => {
  it('are the answered queue requests: not the management operations, nor requests without an answer', () => {
    const o = watched([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 10, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 20, undefined, undefined, { jobId: 'a', error: { kind: 'reset' } }),
      ex('StartPod', 30, 200),
      ex('CreateEndpoint', 40, 200, { id: 'e' }),
      webhook(50, 'a', 200, job('a', 'COMPLETED')),
    ]);
    expect(o.judged['route.missing']).toBe(2);
    expect(o.judged['request.method']).toBe(2);
  });

  it('leave out the probes that send bad requests on purpose, but not the requests probe`s GETs', () => {
    const o = watched([
      ex('run', 0, 400, { error: 'too big' }, { req: { probe: 'payload.run.outside' } }),
      ex('status', 10, 200, job('a', 'IN_QUEUE'), { jobId: 'a', req: { probe: 'request.method' } }),
    ]);
    expect(o.judged['route.missing']).toBe(1);
    expect(o.judged['request.method']).toBe(1);
  });
});

describe('request.method', () => {
  const refused = ex('status', 0, 405, { error: 'method not allowed' }, { jobId: 'a', allow: 'POST' });

  it('says the run goes on with the method the target takes', () => {
    const o = watched([refused]);
    expect(o.fired).toEqual({ 'request.method': 1 });
    expect(o.messages('request.method')[0]).toMatch(
      /; jobstorm sends status with POST from then on \(records marked adaptedFrom GET\), and goes on judging what it answers$/,
    );
  });

  it('says a strict run stops sending the operation', () => {
    const o = watched([refused], true);
    expect(o.fired).toEqual({ 'request.method': 1 });
    expect(o.messages('request.method')[0]).toMatch(
      /; jobstorm stops sending status for the rest of the run$/,
    );
  });
});
