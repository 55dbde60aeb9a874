import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/report-writer.js';
import type { Summary } from '../../src/report/summary.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { readSummary } from '../../src/report/summary-schema.js';
import { fixtureSummary, shardSummary, withoutRun } from './fixtures/fixture-summary.js';


describe('mergeSummaries', () => {
  it('merging two shard summaries equals the summary of the combined records, exactly', () => {
    const whole = fixtureSummary();
    const one = shardSummary('1/2');
    const two = shardSummary('2/2');
    // The split is real: each shard alone differs from the whole.
    expect(one.operations.status?.requests).toBeLessThan(whole.operations.status?.requests ?? 0);
    expect(two.run.startMs).toBe(whole.run.startMs + 1500);

    const merged = mergeSummaries([one, two]);
    expect(withoutRun(merged)).toEqual(withoutRun(whole));
    expect(merged.run.startMs).toBe(whole.run.startMs);
    expect(merged.run.durationMs).toBe(whole.run.durationMs);
    expect(merged.run.shards).toEqual(['1/2', '2/2']);
    // Spot checks that would catch a merge that only looks equal.
    expect(merged.operations.run?.latency).toEqual(whole.operations.run?.latency);
    expect(merged.jobs.e2e.COMPLETED.percentiles).toEqual(whole.jobs.e2e.COMPLETED.percentiles);
    expect(merged.violations.map((v) => [v.id, v.count, v.examples.map((e) => e.at)])).toEqual(
      whole.violations.map((v) => [v.id, v.count, v.examples.map((e) => e.at)]),
    );
    expect(merged.series.requests).toEqual(whole.series.requests);
  });

  it('is independent of input order', () => {
    const a = mergeSummaries([shardSummary('1/2'), shardSummary('2/2')]);
    const b = mergeSummaries([shardSummary('2/2'), shardSummary('1/2')]);
    expect(withoutRun(b)).toEqual(withoutRun(a));
  });

  it('merges exactly after a round trip through summary.json files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'jobstorm-merge-'));
    const dirs = ['1', '2'].map((n) => join(root, n));
    await writeReports(shardSummary('1/2'), dirs[0] ?? '', { reporters: ['json'] });
    await writeReports(shardSummary('2/2'), dirs[1] ?? '', { reporters: ['json'] });
    const read = await Promise.all(dirs.map((d) => readSummary(join(d, 'summary.json'))));
    expect(withoutRun(mergeSummaries(read))).toEqual(withoutRun(fixtureSummary()));
  });

  it('re-evaluates thresholds on the merged data rather than combining verdicts', () => {
    const one = shardSummary('1/2');
    const two = shardSummary('2/2');
    const byExpr = (s: Summary, e: string) => s.thresholds.find((t) => t.expression === e);
    // 3 transition violations overall, split 2 + 1 between the shards.
    expect(byExpr(one, 'count(violation:transition.*) == 0')?.value).toBe(2);
    expect(byExpr(two, 'count(violation:transition.*) == 0')?.value).toBe(1);
    expect(byExpr(mergeSummaries([one, two]), 'count(violation:transition.*) == 0')?.value).toBe(3);
  });

  it('refuses to merge nothing', () => {
    expect(() => mergeSummaries([])).toThrow(/nothing to merge/);
  });
});
