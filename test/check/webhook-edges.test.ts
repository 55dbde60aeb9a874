import { describe, expect, it } from 'vitest';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, job, runRecord, sortByEnd, webhook } from './records.js';
import { done, final, submit, until } from './webhook-job.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * The webhook checks at their edges, on saved records (issue 39: what the fault proofs leave to a
 * live run): each judged on the boundary of its tolerance, and nothing else firing beside it. The
 * defaults: a webhook is missing 30 s after the final state, retries are 10 s ± 3 s apart, and two
 * retries follow a non-200 answer.
 */

function groups(records: JobstormRecord[]) {
  const c = new FoldedChecker(runRecord());
  for (const r of sortByEnd(records)) c.add(r);
  return c.finish().violations;
}

function violations(records: JobstormRecord[]): Record<string, number> {
  return Object.fromEntries(groups(records).map((g) => [g.id, g.count]));
}

function message(records: JobstormRecord[], id: string): string | undefined {
  return groups(records).find((g) => g.id === id)?.examples[0]?.message;
}

describe('webhook.missing', () => {
  it('waits 30 s after the final state, and not a millisecond more', () => {
    expect(violations([submit, final, until(31_000)])).toEqual({});
    expect(violations([submit, final, until(31_001)])).toEqual({ 'webhook.missing': 1 });
  });

  it('says how long it waited, and cites the record that showed the job final', () => {
    const [g] = groups([submit, final, until(60_000)]);
    expect(g?.examples[0]?.message).toMatch(/no delivery came within 30 s$/);
    expect(g?.examples[0]?.evidence.seq).toBe(final.seq);
  });

  it('is not judged for a job never seen final', () => {
    const running = ex('status', 1000, 200, job('w', 'IN_PROGRESS'), { jobId: 'w' });
    expect(violations([submit, running, until(60_000)])).toEqual({});
  });
});

describe('webhook.status-mismatch', () => {
  it('reads only deliveries naming a final state, and only for a job seen final', () => {
    const progress = job('w', 'IN_PROGRESS');
    expect(violations([submit, final, webhook(1100, 'w', 200, progress), until(60_000)])).toEqual({});
    const running = ex('status', 1000, 200, job('w', 'IN_PROGRESS'), { jobId: 'w' });
    expect(violations([submit, running, webhook(1100, 'w', 200, done), until(60_000)])).toEqual({});
  });
});

describe('webhook.retry-count', () => {
  it('a fourth attempt is one too many, even when it is answered 200', () => {
    const d = [1100, 11_100, 21_100].map((at) => webhook(at, 'w', 500, done));
    expect(violations([submit, final, ...d, webhook(31_100, 'w', 200, done), until(60_000)])).toEqual({
      'webhook.retry-count': 1,
    });
  });

  it('after one 500, the retries are awaited until both were due, with twice the spacing tolerance', () => {
    // First attempt at 1.1 s: retries due by 21.1 s, plus 2 × 3 s.
    const first = webhook(1100, 'w', 500, done);
    expect(violations([submit, final, first, until(27_100)])).toEqual({});
    expect(violations([submit, final, first, until(27_101)])).toEqual({ 'webhook.retry-count': 1 });
  });
});

describe('webhook.retry-spacing', () => {
  it('takes 10 s ± 3 s exactly', () => {
    const spaced = (gap: number): JobstormRecord[] =>
      [1100, 1100 + gap, 1100 + 2 * gap].map((at) => webhook(at, 'w', 500, done));
    expect(violations([submit, final, ...spaced(13_000), until(60_000)])).toEqual({});
    expect(violations([submit, final, ...spaced(7_000), until(60_000)])).toEqual({});
    expect(violations([submit, final, ...spaced(13_001), until(60_000)])).toEqual({
      'webhook.retry-spacing': 1,
    });
  });

  it('judges the attempts up to the 200 only: a duplicate after it is no retry', () => {
    const d = [
      webhook(1100, 'w', 500, done),
      webhook(11_100, 'w', 200, done),
      webhook(11_200, 'w', 200, done),
    ];
    expect(violations([submit, final, ...d, until(60_000)])).toEqual({ 'webhook.duplicate': 1 });
    const twice = [...d, webhook(11_300, 'w', 200, done)];
    expect(message([submit, final, ...twice, until(60_000)], 'webhook.duplicate')).toMatch(/\(2 extra\)$/);
  });
});
