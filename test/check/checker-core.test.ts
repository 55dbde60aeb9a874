import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG, type CheckId } from '../../src/check/catalog.js';
import type { Check, CheckContext, Finding } from '../../src/check/check.js';
import type { JobState } from '../../src/check/job-book.js';
import { RECORD_VERSION, type JobstormRecord } from '../../src/core/record.js';
import type { Violation } from '../../src/core/violation.js';
import { ex, job, runRecord, webhook } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The Checker's own work, with stub checks: what each check sees (records on the target's clock,
 * the job fold's events, the book), how findings become grouped violations (severity, examples,
 * evidence, repro), the coverage it counts and the notes it keeps.
 */

/** A check that judges `id` on every exchange, breaking it where `broken` says. */
function stub(
  id: CheckId,
  broken: (r: JobstormRecord) => Partial<Finding> | undefined,
  extra: Partial<Check> = {},
): Check {
  return {
    name: `stub-${id}`,
    ids: [id],
    add(r, ctx) {
      if (r.type !== 'exchange' && r.type !== 'webhook') return;
      const f = broken(r);
      const v = ctx.judge(id, f !== undefined);
      if (v && f) ctx.emit(v, { message: `broke ${id}`, record: r, ...f });
    },
    ...extra,
  };
}

describe('Checker findings', () => {
  it('groups findings by id in order of first occurrence, with exact counts and capped examples', () => {
    let n = 0;
    const c = new FoldedChecker(runRecord(), {
      maxExamples: 2,
      checks: [
        stub('health.negative', () => ({})),
        stub('limits.wait', () => (n++ % 2 === 0 ? {} : undefined)),
      ],
    });
    const records = [0, 1, 2, 3, 4].map((k) => ex('health', k * 10, 200));
    for (const r of records) c.add(r);
    const result = c.finish();
    expect(result.violations.map((g) => [g.id, g.count, g.examples.length])).toEqual([
      ['health.negative', 5, 2],
      ['limits.wait', 3, 2],
    ]);
    expect(result.total).toBe(8);
    expect(result.violations[0]?.examples.map((v) => v.evidence.seq)).toEqual([
      records[0]?.seq,
      records[1]?.seq,
    ]);
    expect(result.violations[1]?.examples.map((v) => v.evidence.seq)).toEqual([
      records[0]?.seq,
      records[2]?.seq,
    ]);
    expect(result.checks).toEqual(['stub-health.negative', 'stub-limits.wait']);
  });

  it('keeps 20 examples unless told otherwise', () => {
    const c = new FoldedChecker(runRecord(), { checks: [stub('health.negative', () => ({}))] });
    for (let k = 0; k < 21; k++) c.add(ex('health', k, 200));
    const [g] = c.finish().violations;
    expect(g?.count).toBe(21);
    expect(g?.examples).toHaveLength(20);
  });

  it("gives a group the catalog's severity, or error once any finding of it is an error", () => {
    // limits.wait is an error in the catalog; lifecycle.timing-inconsistent a warning.
    const severities = ['warning', 'error', 'warning'] as const;
    let n = 0;
    const lowered = new FoldedChecker(runRecord(), {
      checks: [stub('limits.wait', () => ({ severity: severities[n++] }))],
    });
    for (const at of [0, 10, 20]) lowered.add(ex('health', at, 200));
    const [g] = lowered.finish().violations;
    expect(g?.severity).toBe('error');
    expect(g?.examples.map((v) => v.severity)).toEqual(severities);

    const warnOnly = new FoldedChecker(runRecord(), {
      checks: [stub('limits.wait', () => ({ severity: 'warning' }))],
    });
    warnOnly.add(ex('health', 0, 200));
    warnOnly.add(ex('health', 10, 200));
    expect(warnOnly.finish().violations[0]?.severity).toBe('warning');

    const catalog = new FoldedChecker(runRecord(), {
      checks: [stub('lifecycle.timing-inconsistent', () => ({}))],
    });
    catalog.add(ex('health', 0, 200));
    expect(catalog.finish().violations[0]?.severity).toBe('warning');
  });

  it('makes a violation of an exchange: its time, op, job, evidence, timeline copy and repro', () => {
    const seen: Violation[] = [];
    const timeline = [{ at: 1, op: 'run' as const, status: 'IN_QUEUE' as const }];
    const c = new FoldedChecker(runRecord(), {
      checks: [stub('limits.wait', () => ({ timeline }))],
      onViolation: (v) => seen.push(v),
    });
    const r = ex('status', 100, 200, job('j', 'IN_QUEUE'), { jobId: 'j', path: '/status/j', took: 7 });
    c.add(r);
    timeline.push({ at: 2, op: 'run', status: 'IN_QUEUE' });
    const [v] = c.finish().violations[0]?.examples ?? [];
    expect(v).toEqual({
      id: 'limits.wait',
      severity: 'error',
      at: 107,
      message: 'broke limits.wait',
      op: 'status',
      jobId: 'j',
      evidence: {
        seq: r.seq,
        request: 'GET /status/j',
        status: 200,
        body: '{"id":"j","status":"IN_QUEUE"}',
        timeline: [{ at: 1, op: 'run', status: 'IN_QUEUE' }],
      },
      repro: `curl -sS -X GET 'http://127.0.0.1:9/v2/ep/status/j' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    });
    expect(seen).toEqual([v]);
  });

  it('takes the time and job a finding gives over its record, and makes no op or repro for a webhook', () => {
    const c = new FoldedChecker(runRecord(), {
      checks: [stub('limits.wait', (r) => (r.type === 'webhook' ? { at: 5, jobId: 'other' } : undefined))],
    });
    const w = webhook(50, 'j', 200, { id: 'j' });
    c.add(w);
    const [v] = c.finish().violations[0]?.examples ?? [];
    expect(v).toEqual({
      id: 'limits.wait',
      severity: 'error',
      at: 5,
      message: 'broke limits.wait',
      jobId: 'other',
      evidence: { seq: w.seq, request: 'POST /webhook (webhook delivery, answered 200)', body: '{"id":"j"}' },
    });
    expect(v).not.toHaveProperty('op');
    expect(v).not.toHaveProperty('repro');
  });

  it('names no job when neither the finding nor its record has one', () => {
    const c = new FoldedChecker(runRecord(), { checks: [stub('limits.wait', () => ({}))] });
    c.add(ex('health', 0, 200));
    expect(c.finish().violations[0]?.examples[0]).not.toHaveProperty('jobId');
  });
});

describe('Checker coverage and notes', () => {
  it('counts every judged observation per id, and 0 for each id of the catalog judged never', () => {
    const c = new FoldedChecker(runRecord(), { checks: [stub('limits.wait', () => undefined)] });
    c.add(ex('health', 0, 200));
    c.add(ex('health', 10, 200));
    const { coverage, violations } = c.finish();
    expect(violations).toEqual([]);
    expect(Object.keys(coverage).sort()).toEqual(CHECK_CATALOG.map((i) => i.id).sort());
    expect(coverage['limits.wait']).toBe(2);
    expect(coverage['limits.ttl']).toBe(0);
  });

  it('keeps the first reason given for an id that could not be judged', () => {
    const c = new FoldedChecker(runRecord(), {
      checks: [
        {
          name: 'notes',
          ids: ['limits.ttl'],
          finish(ctx) {
            ctx.unjudged('limits.ttl', 'first');
            ctx.unjudged('limits.ttl', 'second');
            ctx.unjudged('limits.wait', 'other');
          },
        },
      ],
    });
    expect(c.finish().notes).toEqual({ 'limits.ttl': 'first', 'limits.wait': 'other' });
  });

  it('finishes once: the checks finish and the jobs fold a single time', () => {
    let finished = 0;
    let folded = 0;
    const c = new FoldedChecker(runRecord(), {
      checks: [
        {
          name: 'count',
          ids: ['limits.ttl'],
          finish: () => {
            finished++;
          },
          jobDone: () => {
            folded++;
          },
        },
      ],
    });
    c.add(ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }));
    const first = c.finish();
    const second = c.finish();
    expect([finished, folded]).toEqual([1, 1]);
    expect(second).toEqual(first);
  });

  it('sends an operation refused with 405 the other way, unless the run is strict', () => {
    const refused = ex('status', 0, 405, undefined, { jobId: 'a', allow: 'POST' });
    const message = (strict: boolean) => {
      const c = new FoldedChecker(runRecord(strict ? { strict } : {}), { checks: [] });
      c.add(refused);
      return c.finish().violations[0]?.examples[0]?.message;
    };
    expect(message(false)).toMatch(/jobstorm sends status with POST from then on/);
    expect(message(true)).toMatch(/jobstorm stops sending status for the rest of the run$/);
  });

  it('reports the routes the route watch found missing', () => {
    const c = new FoldedChecker(runRecord(), { checks: [] });
    c.add(ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }));
    c.add(ex('health', 10, 404));
    const result = c.finish();
    expect(result.missingRoutes).toEqual(['health']);
    expect(result.violations.map((g) => g.id)).toEqual(['route.missing']);
  });
});

describe('what the checks see', () => {
  it('records on the target clock after an advance, and no run or clock record', () => {
    const seen: [string, number][] = [];
    const c = new FoldedChecker(runRecord(), {
      checks: [
        {
          name: 'see',
          ids: [],
          add: (r) => void seen.push([r.type, r.type === 'exchange' ? r.sentAt : -1]),
        },
      ],
    });
    c.add(runRecord());
    c.add(ex('health', 10, 200));
    c.add({ v: RECORD_VERSION, type: 'clock', seq: 0, at: 20, advancedMs: 1000 });
    c.add(ex('health', 30, 200));
    expect(seen).toEqual([
      ['exchange', 10],
      ['exchange', 1030],
    ]);
  });

  it('the job of each record, and the book before the record was applied to it', () => {
    const seen: [string | undefined, string | undefined, string | undefined][] = [];
    const look = (r: JobstormRecord, ctx: CheckContext) => {
      if (r.type !== 'exchange') return;
      seen.push([ctx.job.jobId, ctx.job.shown, ctx.jobs.get('a')?.last]);
    };
    const c = new FoldedChecker(runRecord(), { checks: [{ name: 'look', ids: [], add: look }] });
    c.add(ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }));
    c.add(ex('status', 10, 200, job('a', 'IN_PROGRESS'), { jobId: 'a' }));
    expect(seen).toEqual([
      ['a', 'IN_QUEUE', undefined],
      ['a', 'IN_PROGRESS', 'IN_QUEUE'],
    ]);
  });

  it('each job folded once it is final and its hold passed, and the rest at the end', () => {
    const folded: [string, number][] = [];
    let now = 0;
    const c = new FoldedChecker(runRecord(), {
      checks: [
        {
          name: 'fold',
          ids: [],
          add: (r) => void (now = r.type === 'exchange' ? r.endAt : now),
          jobDone: (j: JobState) => void folded.push([j.id, now]),
        },
      ],
    });
    const done = job('a', 'COMPLETED', { delayTime: 1, executionTime: 1, output: {} });
    c.add(ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }));
    c.add(ex('run', 0, 200, job('b', 'IN_QUEUE'), { jobId: 'b' }));
    c.add(ex('status', 100, 200, done, { jobId: 'a' }));
    // Held 2 s after the answer that showed it final (ended at 105).
    c.add(ex('health', 2095, 200));
    expect(folded).toEqual([]);
    c.add(ex('health', 2100, 200));
    expect(folded).toEqual([['a', 2105]]);
    c.finish();
    expect(folded.map(([id]) => id)).toEqual(['a', 'b']);
  });
});
