import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import type { Violation } from '../../src/core/violation.js';
import { increment, mergeCounts, sortedCounts, type Counts } from '../../src/metrics/counts.js';
import { LatencyHistogram } from '../../src/metrics/histogram.js';
import type { OperationData } from '../../src/metrics/metrics-data.js';
import { OperationStats } from '../../src/metrics/operation-stats.js';
import { isOutcome, outcomeOf, statusKey } from '../../src/metrics/outcome.js';
import { MAX_EXAMPLES, ViolationTally } from '../../src/metrics/violation-tally.js';
import { ex } from '../check/records.js';

/*
 * The run metrics' parts one at a time (issue 39): how an exchange is classed, what an operation,
 * the streamed answers and the violations keep of it, each rule on its edge, and that merge and
 * the JSON round trip keep every figure.
 */

/** A histogram's count and its value at p100, rounded to whole ms; 0/0 when empty. */
function summary(encoded: string): { count: number; maxMs: number } {
  const h = LatencyHistogram.decode(encoded);
  return { count: h.count, maxMs: h.count === 0 ? 0 : Math.round(h.percentileMs(100)) };
}

describe('outcomes', () => {
  it.each([
    [199, 'other'],
    [200, '2xx'],
    [299, '2xx'],
    [300, 'other'],
    [399, 'other'],
    [400, '4xx'],
    [428, '4xx'],
    [429, '429'],
    [430, '4xx'],
    [499, '4xx'],
    [500, '5xx'],
    [599, '5xx'],
  ] as const)('class status %i as %s', (status, outcome) => {
    expect(outcomeOf(ex('run', 0, status))).toBe(outcome);
    expect(statusKey(ex('run', 0, status))).toBe(String(status));
  });

  it('class an exchange without an answer, or with a transport error, as error', () => {
    const noAnswer = ex('run', 0, undefined);
    const cut = ex('run', 0, 200, undefined, { error: { kind: 'reset' } });
    expect([outcomeOf(noAnswer), statusKey(noAnswer)]).toEqual(['error', 'error']);
    expect([outcomeOf(cut), statusKey(cut)]).toEqual(['error', 'error']);
  });

  it('know their own names only', () => {
    expect(['2xx', '429', '4xx', '5xx', 'error', 'other'].every(isOutcome)).toBe(true);
    expect(isOutcome('3xx')).toBe(false);
    expect(isOutcome('')).toBe(false);
  });
});

describe('counts', () => {
  it('increment by one or by a step, merge by key, and sort their keys', () => {
    const c: Counts = {};
    increment(c, 'b');
    increment(c, 'b');
    increment(c, 'a', 5);
    expect(c).toEqual({ b: 2, a: 5 });
    mergeCounts(c, { a: 1, c: 3 });
    expect(c).toEqual({ a: 6, b: 2, c: 3 });
    expect(Object.keys(sortedCounts({ z: 1, m: 0, a: 2 }))).toEqual(['a', 'm', 'z']);
    expect(sortedCounts({ z: 1, m: 0, a: 2 })).toEqual({ a: 2, m: 0, z: 1 });
  });
});

describe('OperationStats', () => {
  function statsOf(records: readonly ExchangeRecord[]): OperationStats {
    const s = new OperationStats();
    for (const r of records) s.add(r);
    return s;
  }

  it('counts requests, bytes, statuses and transport errors', () => {
    const d = statsOf([
      ex('run', 0, 200, undefined, { reqBytes: 10, resBytes: 100 }),
      ex('run', 0, 200, undefined, { reqBytes: 20, resBytes: 200 }),
      ex('run', 0, 503, undefined, { reqBytes: 1, resBytes: 2 }),
      ex('run', 0, undefined, undefined, { reqBytes: 4, resBytes: 0, error: { kind: 'timeout' } }),
      ex('run', 0, undefined, undefined, { reqBytes: 4, resBytes: 0, error: { kind: 'timeout' } }),
      ex('run', 0, undefined, undefined, { reqBytes: 4, resBytes: 0, error: { kind: 'reset' } }),
    ]).toJSON();
    expect(d).toMatchObject({
      requests: 6,
      reqBytes: 43,
      resBytes: 302,
      byStatus: { '200': 2, '503': 1, error: 3 },
      errors: { reset: 1, timeout: 2 },
    });
    expect(Object.keys(d.byStatus)).toEqual(['200', '503', 'error']);
    expect(Object.keys(d.errors)).toEqual(['reset', 'timeout']);
    expect(d).not.toHaveProperty('probe4xx');
  });

  it('counts the 4xx answers to requests sent to be refused apart, and no other answer to them', () => {
    const probe = { req: { probe: 'payload.run.inside' } };
    const d = statsOf([
      ex('run', 0, 400, undefined, probe),
      ex('status', 0, 404, undefined, { flow: '_preflight' }),
      ex('run', 0, 429, undefined, probe),
      ex('run', 0, 200, undefined, probe),
      ex('run', 0, 500, undefined, probe),
      ex('run', 0, 400),
    ]).toJSON();
    expect(d.probe4xx).toBe(2);
  });

  it('keeps the latency from the intended start and from the send, per outcome', () => {
    const s = statsOf([
      ex('run', 100, 200, undefined, { intendedAt: 40, took: 20 }),
      ex('run', 100, 200, undefined, { intendedAt: 100, took: 30 }),
      ex('run', 100, 429, undefined, { took: 2 }),
    ]);
    const d = s.toJSON();
    expect(Object.keys(d.outcomes).sort()).toEqual(['2xx', '429']);
    expect(d.outcomes['2xx']?.count).toBe(2);
    expect(summary(d.outcomes['2xx']?.intended ?? '')).toEqual({ count: 2, maxMs: 80 });
    expect(summary(d.outcomes['2xx']?.sent ?? '')).toEqual({ count: 2, maxMs: 30 });
    expect(summary(d.outcomes['429']?.sent ?? '')).toEqual({ count: 1, maxMs: 2 });
    expect(s.combined('intended').count).toBe(3);
    expect(Math.round(s.combined('intended').percentileMs(100))).toBe(80);
    expect(Math.round(s.combined('sent').percentileMs(100))).toBe(30);
    expect(new OperationStats().combined('sent').count).toBe(0);
  });

  it('lists the outcomes in their fixed order, whatever order they came in', () => {
    const d = statsOf([
      ex('run', 0, undefined),
      ex('run', 0, 302),
      ex('run', 0, 500),
      ex('run', 0, 404),
      ex('run', 0, 429),
      ex('run', 0, 200),
    ]).toJSON();
    // '429' is an integer-like key, which every object lists first.
    expect(Object.keys(d.outcomes)).toEqual(['429', '2xx', '4xx', '5xx', 'error', 'other']);
  });

  it('merges counters and histograms, and survives a JSON round trip', () => {
    const probe = { req: { probe: 'x' } };
    const a = statsOf([
      ex('run', 0, 200, undefined, { took: 10 }),
      ex('run', 0, 400, undefined, probe),
      ex('run', 0, undefined, undefined, { error: { kind: 'reset' } }),
    ]);
    const b = statsOf([
      ex('run', 0, 200, undefined, { took: 40 }),
      ex('run', 0, 404, undefined, probe),
      ex('run', 0, 503),
    ]);
    a.merge(b);
    const d = a.toJSON();
    expect(d).toMatchObject({
      requests: 6,
      reqBytes: 60,
      resBytes: 60,
      probe4xx: 2,
      byStatus: { '200': 2, '400': 1, '404': 1, '503': 1, error: 1 },
      errors: { reset: 1 },
    });
    expect(summary(d.outcomes['2xx']?.sent ?? '')).toEqual({ count: 2, maxMs: 40 });
    expect(summary(d.outcomes['2xx']?.intended ?? '')).toEqual({ count: 2, maxMs: 40 });
    expect(d.outcomes['5xx']?.count).toBe(1);
    const back = OperationStats.fromJSON(JSON.parse(JSON.stringify(d)) as OperationData);
    expect(back.toJSON()).toEqual(d);
    const old: OperationData = { ...d };
    delete old.probe4xx;
    expect(OperationStats.fromJSON(old).toJSON()).toEqual(old);
  });
});

describe('ViolationTally', () => {
  function violation(id: string, at: number, over: Partial<Violation> = {}): Violation {
    return { id, severity: 'warning', at, message: 'm', evidence: {}, ...over };
  }

  it('counts by id and keeps the earliest examples on the wall clock, at most a few', () => {
    const t = new ViolationTally();
    // Anchors differ (shards): wall clock 5,000, 1,500, 3,000, 2,000 and 4,000.
    t.add(violation('a.x', 0), 5000);
    t.add(violation('a.x', 500), 1000);
    t.add(violation('a.x', 1000), 2000);
    t.add(violation('a.x', 1500), 500);
    t.add(violation('a.x', 2000), 2000);
    const [a] = t.toJSON();
    expect(a?.count).toBe(5);
    expect(MAX_EXAMPLES).toBe(3);
    expect(a?.examples.map((e) => e.anchorMs + e.violation.at)).toEqual([1500, 2000, 3000]);
    expect(t.total).toBe(5);
  });

  it('breaks a tie in time by message, then job, then evidence, so arrival order never matters', () => {
    const tied = [
      violation('a.x', 10, { message: 'b' }),
      violation('a.x', 10, { message: 'a', jobId: 'j2' }),
      violation('a.x', 10, { message: 'a', jobId: 'j1', evidence: { seq: 2 } }),
      violation('a.x', 10, { message: 'a', jobId: 'j1', evidence: { seq: 1 } }),
      violation('a.x', 10, { message: 'a' }),
    ];
    const forward = new ViolationTally();
    for (const v of tied) forward.add(v, 0);
    const backward = new ViolationTally();
    for (const v of [...tied].reverse()) backward.add(v, 0);
    const kept = forward.toJSON()[0]?.examples.map((e) => e.violation);
    expect(kept).toEqual([tied[4], tied[3], tied[2]]);
    expect(backward.toJSON()).toEqual(forward.toJSON());
    // A tie in message, job and evidence too (a repro, an operation or the shard's anchor apart).
    const alike = [
      violation('a.x', 10, { repro: 'curl b' }),
      violation('a.x', 10, { repro: 'curl a' }),
      violation('a.x', 10, { op: 'run' }),
      violation('a.x', 0),
    ];
    const one = new ViolationTally();
    for (const v of alike) one.add(v, v.at === 0 ? 10 : 0);
    const other = new ViolationTally();
    for (const v of [...alike].reverse()) other.add(v, v.at === 0 ? 10 : 0);
    expect(other.toJSON()).toEqual(one.toJSON());
    // The same content twice: either may be kept, they are equal.
    const same = new ViolationTally();
    same.add(violation('a.x', 10), 0);
    same.add(violation('a.x', 10), 0);
    expect(same.toJSON()[0]?.examples).toHaveLength(2);
  });

  it('keeps the worse severity of an id, and lists ids in order', () => {
    const t = new ViolationTally();
    t.add(violation('z.last', 0), 0);
    t.add(violation('b.mid', 0, { severity: 'error' }), 0);
    t.add(violation('b.mid', 0), 0);
    t.add(violation('a.first', 0), 0);
    t.add(violation('a.first', 0, { severity: 'error' }), 0);
    t.add(violation('c.warn', 0), 0);
    t.add(violation('c.warn', 0), 0);
    const d = t.toJSON();
    expect(d.map((x) => [x.id, x.severity, x.count])).toEqual([
      ['a.first', 'error', 2],
      ['b.mid', 'error', 2],
      ['c.warn', 'warning', 2],
      ['z.last', 'warning', 1],
    ]);
    expect(t.total).toBe(7);
    expect(new ViolationTally().total).toBe(0);
  });

  it('lists many ids in order whatever order they came in', () => {
    const ids = Array.from({ length: 150 }, (_, i) => `c${String((i * 37) % 150).padStart(3, '0')}.x`);
    const t = new ViolationTally();
    for (const id of ids) t.add(violation(id, 0), 0);
    expect(t.toJSON().map((d) => d.id)).toEqual([...ids].sort());
  });

  it('merges as one tally of every violation, and survives a JSON round trip', () => {
    const a = new ViolationTally();
    a.add(violation('a.x', 300), 0);
    a.add(violation('a.x', 100), 0);
    const b = new ViolationTally();
    b.add(violation('a.x', 200), 0);
    b.add(violation('a.x', 50), 0);
    b.add(violation('b.y', 0, { severity: 'error' }), 0);
    a.merge(b);
    const d = a.toJSON();
    expect(d.map((x) => [x.id, x.count])).toEqual([
      ['a.x', 4],
      ['b.y', 1],
    ]);
    expect(d[0]?.examples.map((e) => e.violation.at)).toEqual([50, 100, 200]);
    const back = ViolationTally.fromJSON(JSON.parse(JSON.stringify(d)) as typeof d);
    expect(back.toJSON()).toEqual(d);
    expect(back.total).toBe(5);
    // A hand-written file's examples are put in order and cut to the few kept.
    const many = ViolationTally.fromJSON([
      {
        id: 'a.x',
        severity: 'warning',
        count: 9,
        examples: [400, 300, 200, 100].map((at) => ({ anchorMs: 0, violation: violation('a.x', at) })),
      },
    ]);
    expect(many.toJSON()[0]?.examples.map((e) => e.violation.at)).toEqual([100, 200, 300]);
  });

  it('gives copies: changing what it returned changes nothing kept', () => {
    const t = new ViolationTally();
    t.add(violation('a.x', 1), 0);
    const first = t.toJSON();
    first[0]?.examples.push({ anchorMs: 0, violation: violation('a.x', 0) });
    expect(t.toJSON()[0]?.examples).toHaveLength(1);
  });
});
