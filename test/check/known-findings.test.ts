import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../src/check/catalog.js';
import type { Check, Finding } from '../../src/check/check.js';
import { KnownMatcher } from '../../src/check/known-matcher.js';
import type { KnownDeviation } from '../../src/core/known-deviation.js';
import type { JobstormRecord } from '../../src/core/record.js';
import type { Violation } from '../../src/core/violation.js';
import { FoldedChecker } from '../helpers/folded.js';
import { ex, runRecord } from './records.js';

/*
 * The checker's side of issue 53: a skipped check judges and finds nothing (not exercised, with its
 * reason); each finding is matched against the known entries (the first in force wins; an expired
 * one only says which entry ran out); the counts tell known from new, and new findings are never
 * crowded out of the examples by known ones.
 */

/** A check that judges `id` on every exchange and breaks it where `broken` says. */
function stub(id: CheckId, broken: (r: JobstormRecord) => Partial<Finding> | undefined): Check {
  return {
    name: `stub-${id}`,
    ids: [id],
    add(r, ctx) {
      if (r.type !== 'exchange') return;
      const f = broken(r);
      const v = ctx.judge(id, f !== undefined);
      if (v && f) ctx.emit(v, { message: `broke ${id}`, record: r, ...f });
    },
  };
}

const START = runRecord().startedAtMs;
const entry = (e: Partial<KnownDeviation>): KnownDeviation => ({
  check: 'health.negative',
  why: 'w',
  who: 'p',
  ...e,
});

function violation(v: Partial<Violation>): Violation {
  return { id: 'health.negative', severity: 'error', at: 0, message: 'm', evidence: {}, ...v };
}

describe('KnownMatcher', () => {
  it('matches on check glob, operation, status and message, each only when given', () => {
    const m = new KnownMatcher(
      [
        entry({ check: 'schema.*', operation: 'status', status: 200 }),
        entry({ check: 'health.negative', message: 'inProgress \\d+' }),
      ],
      START,
    );
    expect(m.match(violation({ id: 'schema.status', op: 'status', evidence: { status: 200 } }))).toEqual({
      entry: 0,
    });
    expect(
      m.match(violation({ id: 'schema.status', op: 'status', evidence: { status: 201 } })),
    ).toBeUndefined();
    expect(m.match(violation({ id: 'schema.run', op: 'run', evidence: { status: 200 } }))).toBeUndefined();
    expect(m.match(violation({ message: 'counter inProgress 3 below 0' }))).toEqual({ entry: 1 });
    expect(m.match(violation({ message: 'counter completed went down' }))).toBeUndefined();
  });

  it('prefers the first entry in force; an expired one only says it would have matched', () => {
    const day = new Date(START).toISOString().slice(0, 10);
    const yesterday = new Date(START - 86_400_000).toISOString().slice(0, 10);
    const m = new KnownMatcher([entry({ expires: yesterday }), entry({ expires: day }), entry({})], START);
    // Expired the day before: skipped for the one that holds through the run's own day.
    expect(m.match(violation({}))).toEqual({ entry: 1 });
    expect(m.expired(0)).toBe(true);
    expect(m.expired(1)).toBe(false);
    const lapsed = new KnownMatcher([entry({ expires: yesterday })], START);
    expect(lapsed.match(violation({}))).toEqual({ entry: 0, expired: true });
  });
});

describe('the checker with skipped checks and known deviations', () => {
  it('a skipped check judges nothing and finds nothing, and says why; the others go on', () => {
    const c = new FoldedChecker(
      runRecord({ skipChecks: [{ check: 'health.*', why: 'our /health is a stub' }] }),
      {
        checks: [stub('health.negative', () => ({})), stub('limits.wait', () => ({}))],
        skip: [{ check: 'limits.ttl', why: 'offline only' }],
      },
    );
    for (const at of [0, 10]) c.add(ex('health', at, 200));
    const r = c.finish();
    expect(r.violations.map((g) => [g.id, g.count])).toEqual([['limits.wait', 2]]);
    expect(r.coverage['health.negative']).toBe(0);
    expect(r.coverage['limits.wait']).toBe(2);
    expect(r.skipped).toMatchObject({
      'health.negative': 'our /health is a stub',
      'health.counter-decreased': 'our /health is a stub',
      'limits.ttl': 'offline only',
    });
    expect(r.notes['health.negative']).toBeUndefined();
  });

  it('counts known findings apart, per entry, and keeps new ones among the examples', () => {
    let n = 0;
    const c = new FoldedChecker(
      runRecord({
        known: {
          file: 'known.yaml',
          entries: [
            entry({ message: 'early' }),
            entry({ check: 'limits.wait', expires: '2000-01-01' }),
            entry({ check: 'route.missing' }),
          ],
        },
      }),
      {
        maxExamples: 3,
        checks: [
          stub('health.negative', () => ({ message: n++ < 4 ? 'early one' : 'late one' })),
          stub('limits.wait', () => ({})),
        ],
      },
    );
    for (let k = 0; k < 6; k++) c.add(ex('health', k * 10, 200));
    const r = c.finish();
    const health = r.violations.find((g) => g.id === 'health.negative');
    expect([health?.count, health?.known]).toEqual([6, 4]);
    // Three kept: the first known one gave way twice to the new ones after it.
    expect(health?.examples.map((e) => e.message)).toEqual(['early one', 'late one', 'late one']);
    const wait = r.violations.find((g) => g.id === 'limits.wait');
    expect([wait?.count, wait?.known]).toEqual([6, undefined]);
    expect(wait?.examples[0]?.known).toEqual({ entry: 1, expired: true });
    expect(r.known?.entries.map((e) => [e.state, e.findings])).toEqual([
      ['matched', 4],
      ['expired', 6],
      ['unseen', 0],
    ]);
  });

  it('jobstorm check --known replaces the entries the run record carries', () => {
    const c = new FoldedChecker(runRecord({ known: { file: 'old.yaml', entries: [entry({})] } }), {
      checks: [stub('health.negative', () => ({}))],
      known: { file: 'new.yaml', entries: [] },
    });
    c.add(ex('health', 0, 200));
    const r = c.finish();
    expect(r.violations[0]?.known).toBeUndefined();
    expect(r.known).toEqual({ file: 'new.yaml', entries: [] });
  });
});
