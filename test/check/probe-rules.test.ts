import { describe, expect, it } from 'vitest';
import { probeCheck } from '../../src/check/checks/probe-check.js';
import type { ExchangeRecord, JobstormRecord, RunRecord } from '../../src/core/record.js';
import { familyOutcome, type FamilyOutcome } from './check-outcome.js';
import { ex, job, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The probe check's rules (`auth.*`, `limits.*`, `request.unknown-job`, `request.missing-input`)
 * on saved records, each at its edges: which answers are judged at all, which break the rule, and
 * which record a finding cites. The probe check runs alone beside the route watch, so the counts
 * are its own.
 */

const IDS = [
  'auth.missing-key-accepted',
  'auth.wrong-key-accepted',
  'auth.form-rejected',
  'limits.payload',
  'limits.wait',
  'limits.ttl',
  'limits.execution-timeout',
  'request.unknown-job',
  'request.missing-input',
] as const;

const check = (records: JobstormRecord[], run?: RunRecord): FamilyOutcome =>
  familyOutcome(records, probeCheck(), IDS, run);

type Auth = NonNullable<NonNullable<ExchangeRecord['req']>['auth']>;

const withAuth = (auth: Auth, status: number | undefined, at = 0, probe?: string): ExchangeRecord =>
  ex('run', at, status, status === 200 ? job(`j${String(at)}`, 'IN_QUEUE') : undefined, {
    req: { auth, ...(probe === undefined ? {} : { probe }) },
  });

const limitsProbe = (
  probe: string,
  expect: 'accept' | 'reject',
  status: number | undefined,
  auth?: Auth,
): ExchangeRecord =>
  ex('run', 0, status, undefined, { req: { probe, expect, ...(auth === undefined ? {} : { auth }) } });

describe('which answers the probe check judges', () => {
  it('owns the auth, limits and request-probe ids', () => {
    expect([...probeCheck().ids].sort()).toEqual([...IDS].sort());
  });

  it('leaves out 429s, 5xx and unanswered requests, and judges 4xx up to 499', () => {
    expect(
      check([withAuth('missing', 429), withAuth('missing', 500), withAuth('missing', undefined)]),
    ).toEqual({ fired: {}, judged: {}, messages: [], cited: [] });
    expect(check([withAuth('missing', 499)]).fired).toEqual({ 'auth.missing-key-accepted': 1 });
    expect(check([withAuth('missing', 503)]).judged).toEqual({});
  });

  it('reads exchanges only', () => {
    const c = new FoldedChecker(runRecord(), { checks: [probeCheck()] });
    c.add(runRecord());
    expect(c.finish().total).toBe(0);
  });
});

describe('auth.missing-key-accepted and auth.wrong-key-accepted', () => {
  it('fire on any answer but 401, one finding per request', () => {
    const out = check([
      withAuth('missing', 200, 0),
      withAuth('missing', 401, 10),
      withAuth('missing', 403, 20),
      withAuth('wrong', 200, 30),
      withAuth('wrong', 401, 40),
    ]);
    expect(out.fired).toEqual({ 'auth.missing-key-accepted': 2, 'auth.wrong-key-accepted': 1 });
    expect(out.judged).toEqual({ 'auth.missing-key-accepted': 3, 'auth.wrong-key-accepted': 2 });
    expect(out.messages).toEqual([
      'a request with no key was answered 200, not 401',
      'a request with no key was answered 403, not 401',
      'a request with a wrong key was answered 200, not 401',
    ]);
  });
});

describe('auth.missing-key-accepted in a run without a key', () => {
  it('is one finding for the whole run, while every answer is judged', () => {
    const first = withAuth('none', 200, 0);
    const out = check([
      withAuth('none', 401, 0),
      first,
      withAuth('none', 200, 10),
      withAuth('none', 404, 20),
    ]);
    expect(out.fired).toEqual({ 'auth.missing-key-accepted': 1 });
    expect(out.judged).toEqual({ 'auth.missing-key-accepted': 4 });
    expect(out.cited).toEqual([first.seq]);
    expect(out.messages[0]).toBe(
      'this target answers requests without a key (200 here, and the run sent none); the contract says 401',
    );
  });

  it('is not reported while every answer is 401', () => {
    expect(check([withAuth('none', 401, 0), withAuth('none', 401, 10)])).toMatchObject({
      fired: {},
      judged: { 'auth.missing-key-accepted': 2 },
    });
  });
});

describe('auth.form-rejected', () => {
  it('is not judged while every request with the key is refused: the key itself is wrong', () => {
    const out = check([withAuth('bearer', 401, 0), withAuth('bare', 401, 10), withAuth('bearer', 401, 20)]);
    expect(out).toEqual({ fired: {}, judged: {}, messages: [], cited: [] });
  });

  it('reports a refusal kept waiting once the other form is let in, citing the refusal', () => {
    const refused = withAuth('bearer', 401, 0);
    const out = check([refused, withAuth('bearer', 401, 5), withAuth('bare', 200, 10)]);
    expect(out.fired).toEqual({ 'auth.form-rejected': 1 });
    expect(out.cited).toEqual([refused.seq]);
    expect(out.messages).toEqual([
      'a good key sent in the Bearer form was refused with 401, while the same key in the bare form was let in',
    ]);
  });

  it('reports a refusal at once when the other form was let in before', () => {
    const refused = withAuth('bare', 401, 10);
    const out = check([withAuth('bearer', 200, 0), refused, withAuth('bare', 401, 20)]);
    expect(out.fired).toEqual({ 'auth.form-rejected': 2 });
    expect(out.cited[0]).toBe(refused.seq);
    expect(out.messages[0]).toBe(
      'a good key sent in the bare form was refused with 401, while the same key in the Bearer form was let in',
    );
  });

  it('reports the bare form kept waiting once Bearer is let in', () => {
    const refused = withAuth('bare', 401, 0);
    const out = check([refused, withAuth('bearer', 204, 10)]);
    expect(out.fired).toEqual({ 'auth.form-rejected': 1 });
    expect(out.cited).toEqual([refused.seq]);
    expect(out.messages[0]).toMatch(/^a good key sent in the bare form was refused/);
  });

  it('does not report a form refused after it was let in itself, with the other never let in', () => {
    expect(check([withAuth('bearer', 200, 0), withAuth('bearer', 401, 10)]).fired).toEqual({});
  });

  it('reports a waiting refusal once: a later answer of the same form finds nothing waiting', () => {
    const out = check([withAuth('bearer', 401, 0), withAuth('bare', 200, 10), withAuth('bare', 200, 20)]);
    expect(out.fired).toEqual({ 'auth.form-rejected': 1 });
  });

  it('counts a let-in auth probe as an observation that passed, and an ordinary request not', () => {
    const out = check([withAuth('bearer', 200, 0, 'auth.bearer'), withAuth('bare', 200, 10)]);
    expect(out.judged).toEqual({ 'auth.form-rejected': 1 });
    expect(check([withAuth('bearer', 200, 0, 'payload.run.inside')]).judged).toEqual({});
  });
});

describe('limits.*', () => {
  it('maps each probe family to its id', () => {
    const out = check([
      limitsProbe('payload.run.inside', 'accept', 413),
      limitsProbe('wait.run.outside', 'reject', 200),
      limitsProbe('ttl.run.outside', 'reject', 200),
      limitsProbe('executionTimeout.run.outside', 'reject', 200),
      limitsProbe('other.run.outside', 'reject', 200),
    ]);
    expect(out.fired).toEqual({
      'limits.payload': 1,
      'limits.wait': 1,
      'limits.ttl': 1,
      'limits.execution-timeout': 1,
    });
    expect(out.messages).toEqual([
      "probe payload.run.inside is within the contract's limits but was rejected with 413",
      "probe wait.run.outside is outside the contract's limits but was accepted with 200",
      "probe ttl.run.outside is outside the contract's limits but was accepted with 200",
      "probe executionTimeout.run.outside is outside the contract's limits but was accepted with 200",
    ]);
  });

  it('rejected means 400 to 499, accepted 200 to 299: anything between breaks neither expectation', () => {
    const accept = (status: number) => limitsProbe('payload.run.inside', 'accept', status);
    const reject = (status: number) => limitsProbe('payload.run.outside', 'reject', status);
    const out = check([
      accept(399),
      accept(400),
      accept(401),
      accept(499),
      accept(200),
      reject(199),
      reject(200),
      reject(299),
      reject(300),
      reject(400),
    ]);
    expect(out.judged).toEqual({ 'limits.payload': 10 });
    expect(out.messages).toEqual([
      "probe payload.run.inside is within the contract's limits but was rejected with 400",
      "probe payload.run.inside is within the contract's limits but was rejected with 401",
      "probe payload.run.inside is within the contract's limits but was rejected with 499",
      "probe payload.run.outside is outside the contract's limits but was accepted with 200",
      "probe payload.run.outside is outside the contract's limits but was accepted with 299",
    ]);
  });

  it('needs both the probe and its expectation', () => {
    const noExpect = ex('run', 0, 200, undefined, { req: { probe: 'payload.run.outside' } });
    const noProbe = ex('run', 0, 200, undefined, { req: { expect: 'reject' } });
    expect(check([noExpect, noProbe])).toEqual({ fired: {}, judged: {}, messages: [], cited: [] });
  });

  it('judges a probe sent with our key once the key is let in, and leaves its 401 to the auth rules', () => {
    const out = check([
      limitsProbe('wait.run.outside', 'reject', 200, 'bearer'),
      limitsProbe('wait.run.inside', 'accept', 401, 'bearer'),
      limitsProbe('wait.run.outside', 'reject', 200),
    ]);
    expect(out.judged).toEqual({ 'limits.wait': 2 });
    expect(out.fired).toEqual({ 'limits.wait': 2 });
    expect(check([limitsProbe('wait.run.inside', 'accept', 400, 'bare')]).fired).toEqual({
      'limits.wait': 1,
    });
  });

  it('is not judged on a request with a missing, wrong or no key', () => {
    const out = check([
      limitsProbe('ttl.run.outside', 'reject', 200, 'missing'),
      limitsProbe('ttl.run.outside', 'reject', 200, 'wrong'),
      limitsProbe('ttl.run.outside', 'reject', 200, 'none'),
    ]);
    expect(out.judged['limits.ttl']).toBeUndefined();
  });
});

describe('request.unknown-job', () => {
  const unknown = (status: number, body?: unknown, extra: Partial<ExchangeRecord> = {}) =>
    ex('status', 0, status, body, { jobId: 'never', req: { probe: 'request.unknown-job' }, ...extra });

  it('wants 404, and says the status a body showed', () => {
    const out = check([unknown(404), unknown(200, job('never', 'IN_QUEUE')), unknown(400, { status: 7 })]);
    expect(out.judged).toEqual({ 'request.unknown-job': 3 });
    expect(out.fired).toEqual({ 'request.unknown-job': 2 });
    expect(out.messages).toEqual([
      'GET /status, a job id that never existed, was answered 200 with status IN_QUEUE in its body; the contract says 404',
      'GET /status, a job id that never existed, was answered 400; the contract says 404',
    ]);
  });

  it('says nothing on a refused key or method, and is judged before the auth rules', () => {
    expect(check([unknown(401), unknown(403), unknown(405)])).toEqual({
      fired: {},
      judged: {},
      messages: [],
      cited: [],
    });
    const out = check([unknown(404, undefined, { req: { probe: 'request.unknown-job', auth: 'missing' } })]);
    expect(out.judged).toEqual({ 'request.unknown-job': 1 });
  });
});

describe('request.missing-input', () => {
  const missing = (status: number, at = 100) =>
    ex('run', at, status, undefined, { req: { probe: 'request.missing-input' } });
  const served = ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' });

  it('wants 400', () => {
    const out = check([served, missing(400), missing(200), missing(422)]);
    expect(out.judged).toEqual({ 'request.missing-input': 3 });
    expect(out.messages).toEqual([
      'a run body without input was answered 200; the contract says 400',
      'a run body without input was answered 422; the contract says 400',
    ]);
  });

  it('leaves a 404 to the route watch until the route was seen answering', () => {
    expect(check([missing(404, 0)]).judged).toEqual({});
    expect(check([served, missing(404)]).fired).toEqual({ 'request.missing-input': 1 });
  });

  it('says nothing on a refused key or method', () => {
    expect(check([served, missing(401), missing(403), missing(405)]).judged).toEqual({});
  });

  it('is judged before the auth rules, which never see a request probe', () => {
    const keyless = (status: number, at = 100) =>
      ex('run', at, status, undefined, { req: { probe: 'request.missing-input', auth: 'missing' } });
    expect(check([keyless(404, 0)]).judged).toEqual({});
    expect(check([served, keyless(401), keyless(400)]).judged).toEqual({ 'request.missing-input': 1 });
  });
});
