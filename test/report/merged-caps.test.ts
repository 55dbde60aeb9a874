import { describe, expect, it } from 'vitest';
import { mergeCaps } from '../../src/core/run-limits.js';
import { capLines } from '../../src/report/cap-lines.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { shardSummary } from './fixtures/fixture-summary.js';

/*
 * Issue 52: each shard had its own caps; a merge adds their limits and what they dropped, in one
 * order whatever the order of the shards, and a summary without `caps` (older, or no cap reached)
 * merges as none.
 */

describe('caps across shards', () => {
  it('add up per cap in a merge, in the order reports list them', () => {
    const one = {
      ...shardSummary('1/2'),
      caps: [
        { id: 'checks.brief' as const, limit: 500_000, dropped: 12 },
        { id: 'jobs.followed' as const, limit: 200_000, dropped: 1_234_567 },
      ],
    };
    const two = {
      ...shardSummary('2/2'),
      caps: [{ id: 'jobs.followed' as const, limit: 200_000, dropped: 3 }],
    };
    const merged = mergeSummaries([one, two]);
    expect(merged.caps).toEqual([
      { id: 'jobs.followed', limit: 400_000, dropped: 1_234_570 },
      { id: 'checks.brief', limit: 500_000, dropped: 12 },
    ]);
    expect(mergeSummaries([two, one]).caps).toEqual(merged.caps);
    expect(capLines(merged)[0]).toBe(
      'jobs followed: 400,000 at once; 1,234,570 given up on early (their final state not judged, their end-to-end time not measured; counted as untracked)',
    );
    expect(mergeSummaries([shardSummary('1/2'), shardSummary('2/2')]).caps).toBeUndefined();
  });

  it('of one part each are listed in CAP_IDS order', () => {
    expect(
      mergeCaps(
        [{ id: 'scaling.samples', limit: 1, dropped: 2 }],
        [{ id: 'jobs.followed', limit: 3, dropped: 4 }],
      ).map((c) => c.id),
    ).toEqual(['jobs.followed', 'scaling.samples']);
  });
});
