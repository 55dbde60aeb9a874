import { describe, expect, it } from 'vitest';
import { allowedInstead, RouteWatch } from '../../src/core/route-watch.js';
import { ex } from '../check/records.js';

const accepted = (id: string, at: number) => ex('run', at, 200, { id, status: 'IN_QUEUE' }, { jobId: id });
const refused = (at: number, allow?: string) =>
  ex('status', at, 405, { detail: 'Method Not Allowed' }, { jobId: 'j1', ...(allow ? { allow } : {}) });

describe('RouteWatch: an operation served to another method (issue 37)', () => {
  it('a 405 with Allow: POST is one request.method finding, and the watch says to send POST from then on', () => {
    const w = new RouteWatch();
    expect(w.add(accepted('j1', 0))).toEqual([]);
    const found = w.add(refused(10, 'POST, OPTIONS'));
    expect(found.map((m) => [m.op, m.kind, m.served])).toEqual([['status', 'method', 'POST']]);
    expect(w.methodFor('status')).toBe('POST');
    expect(w.isMissing('status')).toBe(false);
    // A GET that was in flight meanwhile: the method finding's, not another one.
    expect(w.add(refused(12, 'POST'))).toEqual([]);
    expect(w.refuses(refused(13, 'POST'))).toBe(true);
    // The adapted request's answers count as the operation's own.
    const adapted = ex(
      'status',
      20,
      200,
      { id: 'j1', status: 'IN_PROGRESS' },
      { jobId: 'j1', method: 'POST' },
    );
    adapted.req = { adaptedFrom: 'GET' };
    expect(w.add(adapted)).toEqual([]);
    expect(w.hasServed('status')).toBe(true);
    expect(w.refuses(adapted)).toBe(false);
  });

  it('strict: the same finding, but the operation is no longer sent', () => {
    const w = new RouteWatch({ adapt: false });
    w.add(accepted('j1', 0));
    expect(w.add(refused(10, 'POST'))).toHaveLength(1);
    expect(w.methodFor('status')).toBeUndefined();
    expect(w.isMissing('status')).toBe(true);
  });

  it('a 405 without an Allow header it can use: reported, and not sent (nothing to adapt to)', () => {
    const w = new RouteWatch();
    expect(w.add(refused(10))).toHaveLength(1);
    expect(w.methodFor('status')).toBeUndefined();
    expect(w.isMissing('status')).toBe(true);
    expect(allowedInstead(refused(0, 'GET, HEAD'))).toBeUndefined();
    expect(allowedInstead(refused(0, 'post'))).toBe('POST');
  });
});

describe('RouteWatch: 404s for jobs accepted moments before', () => {
  const cancel404 = (id: string, at: number) => ex('cancel', at, 404, { detail: 'Not Found' }, { jobId: id });

  it('/cancel answering 404 for the first 3 just-accepted jobs, and nothing else, is route.missing without any /status', () => {
    const w = new RouteWatch();
    for (const [i, id] of ['a', 'b', 'c'].entries()) w.add(accepted(id, i * 100));
    expect(w.add(cancel404('a', 300))).toEqual([]);
    expect(w.add(cancel404('b', 310))).toEqual([]);
    const found = w.add(cancel404('c', 320));
    expect(found.map((m) => [m.op, m.kind, m.record.jobId])).toEqual([['cancel', 'route', 'a']]);
    expect(found[0]?.reason).toContain('first 3 jobs the endpoint accepted');
    expect(w.isMissing('cancel')).toBe(true);
  });

  it('a /cancel that answered 2xx before is served: its later 404s are about jobs, never route.missing', () => {
    const w = new RouteWatch();
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) w.add(accepted(id, i * 100));
    w.add(ex('cancel', 350, 200, { id: 'a', status: 'CANCELLED' }, { jobId: 'a' }));
    for (const id of ['b', 'c', 'd']) expect(w.add(cancel404(id, 400))).toEqual([]);
    w.add(ex('status', 500, 200, { id: 'b', status: 'IN_PROGRESS' }, { jobId: 'b' }));
    expect(w.missingRoutes()).toEqual([]);
  });

  it('404s asked for long after the accept may be expired jobs: no finding', () => {
    const w = new RouteWatch();
    for (const [i, id] of ['a', 'b', 'c'].entries()) w.add(accepted(id, i));
    for (const id of ['a', 'b', 'c']) expect(w.add(cancel404(id, 20_000))).toEqual([]);
  });
});
