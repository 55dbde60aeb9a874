import { describe, expect, it } from 'vitest';
import type { JobstormRecord, RunRecord } from '../../src/core/record.js';
import { ex, job, runRecord, sortByEnd, webhook } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

function check(records: JobstormRecord[], run: RunRecord = runRecord()): Map<string, number> {
  const c = new FoldedChecker(run);
  for (const r of sortByEnd(records)) c.add(r);
  return new Map(c.finish().violations.map((g) => [g.id, g.count]));
}

const done = (id: string, extra: Record<string, unknown> = {}) =>
  job(id, 'COMPLETED', { delayTime: 10, executionTime: 20, output: {}, ...extra });

describe('transition checks on saved records', () => {
  it('legal races are silent: skipped states, cancel racing completion, retry after FAILED', () => {
    const v = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 100, 200, done('a'), { jobId: 'a' }),
      ex('run', 0, 200, job('b', 'IN_QUEUE'), { jobId: 'b' }),
      ex('status', 50, 200, job('b', 'IN_PROGRESS'), { jobId: 'b' }),
      ex('cancel', 60, 200, done('b'), { jobId: 'b' }),
      ex('status', 90, 200, done('b'), { jobId: 'b' }),
      ex('run', 0, 200, job('c', 'IN_QUEUE'), { jobId: 'c' }),
      ex('status', 100, 200, job('c', 'FAILED', { error: 'boom' }), { jobId: 'c' }),
      ex('retry', 200, 200, job('c', 'IN_QUEUE'), { jobId: 'c' }),
      ex('status', 300, 200, done('c'), { jobId: 'c' }),
    ]);
    expect([...v.keys()]).toEqual([]);
  });

  it('fires once per job for a step back, and names the job', () => {
    const c = new FoldedChecker(runRecord());
    for (const r of [
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 100, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }),
      ex('status', 200, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 300, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
    ])
      c.add(r);
    const [group] = c.finish().violations;
    expect(group?.id).toBe('transition.backwards');
    expect(group?.count).toBe(1);
    expect(group?.examples[0]?.jobId).toBe('a');
    expect(group?.examples[0]?.evidence.timeline?.map((t) => t.status)).toEqual([
      'IN_QUEUE',
      'IN_PROGRESS',
      'IN_QUEUE',
    ]);
    expect(group?.examples[0]?.repro).toContain('$JOBSTORM_API_KEY');
  });
});

describe('lifecycle checks on saved records', () => {
  it('a 404 right after submission is a lost job; one after ttl is not', () => {
    // Another job's 200 shows the endpoint serves /status, so the 404 is about job a.
    const served = [
      ex('run', 0, 200, job('b', 'IN_QUEUE'), { jobId: 'b' }),
      ex('status', 100, 200, job('b', 'IN_QUEUE'), { jobId: 'b' }),
    ];
    expect(
      check([
        ...served,
        ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
        ex('status', 5000, 404, { error: 'not found' }, { jobId: 'a' }),
      ]).get('lifecycle.lost'),
    ).toBe(1);
    expect(
      check([
        ...served,
        ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a', req: { ttl: 10_000 } }),
        ex('status', 20_000, 404, { error: 'not found' }, { jobId: 'a' }),
      ]).get('lifecycle.lost'),
    ).toBeUndefined();
  });

  it('a 404 contradicted by a later answer for the same job is not a lost job', () => {
    const v = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 50, 404, { error: 'not found' }, { jobId: 'a' }),
      ex('status', 600, 200, job('a', 'COMPLETED'), { jobId: 'a' }),
    ]);
    expect(v.get('lifecycle.lost')).toBeUndefined();
  });

  it('404s from a /status route that never answered anything else are one route.missing, not lost jobs', () => {
    const records = ['a', 'b', 'c', 'd'].flatMap((id, i) => [
      ex('run', i * 100, 200, job(id, 'IN_QUEUE'), { jobId: id }),
      ex('status', i * 100 + 50, 404, { detail: 'Not Found' }, { jobId: id }),
    ]);
    const v = check(records);
    expect(v.get('lifecycle.lost')).toBeUndefined();
    expect(v.get('route.missing')).toBe(1);
    expect(v.get('status.status')).toBeUndefined();
    expect(v.get('schema.status')).toBeUndefined();
  });

  it('a job served well after its ttl', () => {
    const v = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a', req: { ttl: 10_000 } }),
      ex('status', 30_000, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }),
    ]);
    expect(v.get('lifecycle.ttl-ignored')).toBe(1);
  });

  it('TIMED_OUT before executionTimeout, and a run past it that did not time out', () => {
    const early = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a', req: { executionTimeout: 10_000 } }),
      ex('status', 3000, 200, job('a', 'TIMED_OUT', { executionTime: 2500, delayTime: 1 }), { jobId: 'a' }),
    ]);
    expect(early.get('lifecycle.timeout-early')).toBe(1);
    const late = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a', req: { executionTimeout: 5000 } }),
      ex('status', 20_000, 200, done('a', { executionTime: 19_000 }), { jobId: 'a' }),
    ]);
    expect(late.get('lifecycle.timeout-ignored')).toBe(1);
  });

  it('/runsync that answers long after its wait', () => {
    const v = check([
      ex('runsync', 0, 200, job('s', 'IN_PROGRESS'), { jobId: 's', took: 9000, req: { wait: 2000 } }),
    ]);
    expect(v.get('lifecycle.runsync-wait-exceeded')).toBe(1);
  });

  it('/runsync that waited for a free connection is held from when it went onto one, not from its send', () => {
    // 9 s from send to answer, of which 7 s in our pool behind busy connections: the service held it 2 s.
    const queued = check([
      ex('runsync', 0, 200, job('s', 'IN_PROGRESS'), {
        jobId: 's',
        took: 9000,
        queuedMs: 7000,
        req: { wait: 2000 },
      }),
    ]);
    expect(queued.get('lifecycle.runsync-wait-exceeded')).toBeUndefined();
    // Queued 1 s and then held 8 s: still far past its wait.
    const held = check([
      ex('runsync', 0, 200, job('s', 'IN_PROGRESS'), {
        jobId: 's',
        took: 9000,
        queuedMs: 1000,
        req: { wait: 2000 },
      }),
    ]);
    expect(held.get('lifecycle.runsync-wait-exceeded')).toBe(1);
  });

  it("/runsync read late because jobstorm's own loop was held up is judged from when its answer can have come in", () => {
    // 9 s from send to read, but our loop had not run for the last 6 s: the answer may be 3 s old.
    const late = check([
      ex('runsync', 0, 200, job('s', 'IN_PROGRESS'), {
        jobId: 's',
        took: 9000,
        loopGapMs: 6000,
        req: { wait: 2000 },
      }),
    ]);
    expect(late.get('lifecycle.runsync-wait-exceeded')).toBeUndefined();
    // A short gap does not explain 9 s.
    const slow = check([
      ex('runsync', 0, 200, job('s', 'IN_PROGRESS'), {
        jobId: 's',
        took: 9000,
        loopGapMs: 300,
        req: { wait: 2000 },
      }),
    ]);
    expect(slow.get('lifecycle.runsync-wait-exceeded')).toBe(1);
  });
});

describe('rate-limit checks on saved records', () => {
  const burst = (n: number, spanMs: number, status = 200) =>
    Array.from({ length: n }, (_, i) =>
      ex('cancel', (i * spanMs) / n, status, job(`j${String(i)}`, 'CANCELLED'), { took: 1 }),
    );

  it('a 429 with the window far from full is early; one at the limit is not', () => {
    const early = check([
      ...burst(30, 5000),
      ex('cancel', 5000, 429, { error: 'slow down' }, { retryAfter: '3', took: 1 }),
    ]);
    expect(early.get('ratelimit.early')).toBe(1);
    const fair = check([
      ...burst(100, 5000),
      ex('cancel', 5000, 429, { error: 'slow down' }, { retryAfter: '3', took: 1 }),
    ]);
    expect(fair.get('ratelimit.early')).toBeUndefined();
  });

  // The service counts a request when it reads it; a stalled server reads late what was sent early.
  const throttle = (at: number, took = 1) =>
    ex('cancel', at, 429, { error: 'slow down' }, { retryAfter: '3', took });
  const recent = burst(40, 4000).map((r) => ({
    ...r,
    sentAt: r.sentAt + 6000,
    intendedAt: r.intendedAt + 6000,
    endAt: r.endAt + 6000,
  }));

  it('a 429 that requests read late into its window explain is not early', () => {
    const stalled = (took: number) => burst(60, 1000).map((r) => ({ ...r, endAt: r.sentAt + took }));
    // Sent before the window of the 429 at 11.5 s, answered (so read) inside it: 100 in the window.
    expect(check([...stalled(2000), ...recent, throttle(11_500)]).get('ratelimit.early')).toBeUndefined();
    // Answered before the window opened: they cannot be in it, and 40 is early.
    expect(check([...stalled(200), ...recent, throttle(11_500)]).get('ratelimit.early')).toBe(1);
  });

  it('requests that got no answer may still have been counted, unless their connection was refused', () => {
    const unanswered = (kind: 'timeout' | 'refused') =>
      Array.from({ length: 60 }, (_, i) =>
        ex('cancel', 5000 + i * 10, undefined, undefined, { error: { kind }, took: 20_000 }),
      );
    expect(
      check([...unanswered('timeout'), ...recent, throttle(11_500)]).get('ratelimit.early'),
    ).toBeUndefined();
    expect(check([...unanswered('refused'), ...recent, throttle(11_500)]).get('ratelimit.early')).toBe(1);
  });

  it('a 429 read late, after requests sent while it waited, is not early', () => {
    const old = burst(40, 4000);
    // Answered 404 (counted by the window, never in progress): the cap cannot explain the 429.
    const during = Array.from({ length: 60 }, (_, i) =>
      ex('cancel', 5001 + i * 40, 404, { error: 'no such job' }, { took: 1 }),
    );
    expect(check([...old, ...during, throttle(5000, 3000)]).get('ratelimit.early')).toBeUndefined();
    expect(check([...old, ...during, throttle(5000, 1)]).get('ratelimit.early')).toBe(1);
    // Requests in progress when it was read may have filled the cap of 20 cancels in progress.
    const long = Array.from({ length: 25 }, (_, i) =>
      ex('cancel', 5001 + i * 40, 200, job(`l${String(i)}`, 'CANCELLED'), { took: 2000 }),
    );
    expect(check([...burst(10, 4000), ...long, throttle(5000, 3000)]).get('ratelimit.early')).toBeUndefined();
    expect(check([...burst(10, 4000), ...long, throttle(5000, 1)]).get('ratelimit.early')).toBe(1);
  });

  it('requests still waiting in our pool for a connection when the 429 came back are not in its window', () => {
    // 60 sent (handed to the pool) just before the 429, but written to a connection only 2 s later.
    const pooled = (queuedMs?: number) =>
      Array.from({ length: 60 }, (_, i) =>
        ex('cancel', 4900 + i, 200, job(`p${String(i)}`, 'CANCELLED'), {
          took: 2005,
          ...(queuedMs === undefined ? {} : { queuedMs }),
        }),
      );
    expect(check([...burst(40, 4000), ...pooled(2000), throttle(4990)]).get('ratelimit.early')).toBe(1);
    // Unknown when they went out: they may have been read first, and the 429 is fair.
    expect(check([...burst(40, 4000), ...pooled(), throttle(4990)]).get('ratelimit.early')).toBeUndefined();
  });

  it('accepting far beyond 100 cancels per 10 s is not enforcing the limit', () => {
    expect(check(burst(200, 5000)).get('ratelimit.not-enforced')).toBe(1);
    expect(check(burst(100, 5000)).get('ratelimit.not-enforced')).toBeUndefined();
  });

  it('a 429 without Retry-After, or with one longer than any window', () => {
    expect(check([ex('cancel', 0, 429, { error: 'x' }, { took: 1 })]).get('ratelimit.retry-after')).toBe(1);
    expect(
      check([ex('cancel', 0, 429, { error: 'x' }, { took: 1, retryAfter: '120' })]).get(
        'ratelimit.retry-after',
      ),
    ).toBe(1);
    expect(
      check([ex('cancel', 0, 429, { error: 'x' }, { took: 1, retryAfter: 'soon' })]).get(
        'ratelimit.retry-after',
      ),
    ).toBe(1);
  });
});

describe('webhook checks on saved records', () => {
  const submit = ex('run', 0, 200, job('w', 'IN_QUEUE'), {
    jobId: 'w',
    req: { webhook: 'http://127.0.0.1:1/webhook' },
  });
  const final = ex('status', 1000, 200, done('w'), { jobId: 'w' });
  const later = ex('health', 120_000, 200, {
    jobs: { completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
    workers: { idle: 1, running: 0 },
  });

  it('three attempts 10 s apart after 500s are right; a missing one is not', () => {
    const body = done('w');
    expect([
      ...check([
        submit,
        final,
        webhook(1100, 'w', 500, body),
        webhook(11_100, 'w', 500, body),
        webhook(21_100, 'w', 500, body),
        later,
      ]).keys(),
    ]).toEqual([]);
    expect(check([submit, final, later]).get('webhook.missing')).toBe(1);
    expect(check([submit, final, webhook(1100, 'w', 500, body), later]).get('webhook.retry-count')).toBe(1);
    expect(
      check([
        submit,
        final,
        webhook(1100, 'w', 500, body),
        webhook(2100, 'w', 500, body),
        webhook(3100, 'w', 500, body),
        later,
      ]).get('webhook.retry-spacing'),
    ).toBe(1);
    expect(
      check([submit, final, webhook(1100, 'w', 200, body), webhook(1200, 'w', 200, body), later]).get(
        'webhook.duplicate',
      ),
    ).toBe(1);
    expect(
      check([submit, final, webhook(1100, 'w', 200, job('w', 'FAILED', { error: 'x' })), later]).get(
        'webhook.status-mismatch',
      ),
    ).toBe(1);
  });

  it('deliveries our held-up loop read late: a retry after our late 200 is no duplicate, and the spacing is as unsure as the gaps', () => {
    const body = done('w');
    // Read 12 s late: our 200 went back after the service had given up on the attempt.
    const lateOk = { ...webhook(1100, 'w', 200, body), loopGapMs: 12_000 };
    expect(
      check([submit, final, lateOk, webhook(11_200, 'w', 200, body), later]).get('webhook.duplicate'),
    ).toBeUndefined();
    expect(
      check([submit, final, webhook(1100, 'w', 200, body), webhook(11_200, 'w', 200, body), later]).get(
        'webhook.duplicate',
      ),
    ).toBe(1);
    // The second attempt came in at 11.1 s but was read at 16.1 s, after a 6 s gap.
    const lateRetry = { ...webhook(16_100, 'w', 500, body), loopGapMs: 6000 };
    expect(
      check([
        submit,
        final,
        webhook(1100, 'w', 500, body),
        lateRetry,
        webhook(26_100, 'w', 500, body),
        later,
      ]).get('webhook.retry-spacing'),
    ).toBeUndefined();
    expect(
      check([
        submit,
        final,
        webhook(1100, 'w', 500, body),
        webhook(16_100, 'w', 500, body),
        webhook(26_100, 'w', 500, body),
        later,
      ]).get('webhook.retry-spacing'),
    ).toBe(1);
  });
});

describe('offline and live agree', () => {
  it('the same stream in the same order gives identical violations', () => {
    const records = sortByEnd([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 100, 200, done('a'), { jobId: 'a' }),
      ex('status', 200, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }),
      ex('status', 300, 404, { error: 'gone' }, { jobId: 'a' }),
      ex('health', 400, 200, {
        jobs: { completed: -1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
        workers: { idle: 1, running: 0 },
      }),
    ]);
    const a = new FoldedChecker(runRecord());
    const b = new FoldedChecker(runRecord());
    for (const r of records) a.add(r);
    for (const r of JSON.parse(JSON.stringify(records)) as JobstormRecord[]) b.add(r);
    expect(b.finish()).toEqual(a.finish());
    expect(a.finish().total).toBeGreaterThan(0);
  });
});

describe('retried jobs', () => {
  it('measure their execution afresh: a retry of a timed-out job is not "running too long"', () => {
    const v = check([
      ex('run', 0, 200, job('t', 'IN_QUEUE'), { jobId: 't', req: { executionTimeout: 5000 } }),
      ex('status', 100, 200, job('t', 'IN_PROGRESS'), { jobId: 't' }),
      ex('status', 5200, 200, job('t', 'TIMED_OUT', { executionTime: 5000, delayTime: 50 }), { jobId: 't' }),
      ex('retry', 5300, 200, job('t', 'IN_QUEUE'), { jobId: 't' }),
      ex('status', 5400, 200, job('t', 'IN_PROGRESS'), { jobId: 't' }),
      ex('status', 9000, 200, job('t', 'IN_PROGRESS'), { jobId: 't' }),
    ]);
    expect([...v.keys()]).toEqual([]);
  });
});

describe('jobs polled after the book folded them', () => {
  it('are judged as if they had never left: a late poll going back is caught, a late poll of a webhook job is not a missing webhook', () => {
    const hook = (at: number) => webhook(at, 'w', 200, done('w'));
    const v = check([
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 100, 200, done('a'), { jobId: 'a' }),
      // Folded 10 s after its final state; 60 s later the service shows it queued again.
      ex('status', 60_000, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('run', 0, 200, job('w', 'IN_QUEUE'), { jobId: 'w', req: { webhook: 'http://127.0.0.1:9/h' } }),
      ex('status', 100, 200, done('w'), { jobId: 'w' }),
      hook(150),
      // Long after its hold (webhook wait + 25 s) the job is polled, final again, and folded again.
      ex('status', 120_000, 200, done('w'), { jobId: 'w' }),
      ex('health', 200_000, 200, {
        jobs: { completed: 2, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
        workers: { idle: 1, running: 0 },
      }),
    ]);
    expect(v.get('transition.left-final')).toBe(1);
    expect(v.get('webhook.missing')).toBeUndefined();
    expect([...v.keys()].filter((id) => id !== 'transition.left-final')).toEqual([]);
  });
});

describe('purge counts', () => {
  const purged = (removed: number) =>
    check([
      ...['p1', 'p2', 'p3'].flatMap((id) => [
        ex('run', 0, 200, job(id, 'IN_QUEUE'), { jobId: id }),
        ex('status', 1100, 200, job(id, 'CANCELLED'), { jobId: id }),
      ]),
      ex('purge-queue', 1000, 200, { removed, status: 'completed' }),
      // Judged 30 s later, when the cancelled jobs have long been folded (by the first of these).
      ...[10_000, 40_000].map((at) =>
        ex('health', at, 200, {
          jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
          workers: { idle: 1, running: 0 },
        }),
      ),
    ]).get('lifecycle.purge-count');

  // Found by the fuzzer (issue 50) on the faithful emulator: a runsync still waiting in the queue
  // when a purge went out is cancelled by it, and its answer (CANCELLED) comes back before the
  // purge's. It was waiting: the purge's removed=1 is right, and no finding.
  it('count a runsync the purge cancelled, sent before it and answered CANCELLED after it was sent', () => {
    const v = check([
      ex('runsync', 0.022, 200, job('b', 'CANCELLED'), { jobId: 'b', took: 0.027 }),
      ex('purge-queue', 0.04, 200, { removed: 1, status: 'completed' }, { took: 0.012 }),
    ]);
    expect(v.get('lifecycle.purge-count')).toBeUndefined();
    // One job could have waited, not two.
    const twice = check([
      ex('runsync', 0.022, 200, job('b', 'CANCELLED'), { jobId: 'b', took: 0.027 }),
      ex('purge-queue', 0.04, 200, { removed: 2, status: 'completed' }, { took: 0.012 }),
    ]);
    expect(twice.get('lifecycle.purge-count')).toBe(1);
  });

  it('count the jobs that waited even after the book folded them, and still catch a count above them', () => {
    expect(purged(3)).toBeUndefined();
    expect(purged(5)).toBe(1);
  });
});
