import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Violation } from '../../src/core/violation.js';
import { getReporter } from '../../src/report/reporter-registry.js';
import { renderTerminalSummary, writeReports } from '../../src/report/report-writer.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { readSummary } from '../../src/report/summary-schema.js';
import { fixtureSummary, shardSummary, withoutRun, type FixtureKnown } from './fixtures/fixture-summary.js';

/*
 * Known deviations in the summary (issue 53): counted by id and by entry, told apart in the verdict
 * and thresholds, merged across shards exactly, kept through summary.json, and shown in every report.
 * The fixture's findings: 3 transition.backwards (all known), 2 server.error (the 503 known, the
 * 500 new), 1 lifecycle.early-404 (new), 1 schema warning; one entry matches nothing.
 */
const KNOWN: FixtureKnown = {
  known: {
    file: 'known.yaml',
    entries: [
      { check: 'transition.*', why: 'PLAT-1: the queue replays', who: 'alice', expires: '2099-01-01' },
      { check: 'server.error', status: 503, why: 'PLAT-2: the gateway sheds load', who: 'bob' },
      { check: 'route.missing', operation: 'purge-queue', why: 'PLAT-3', who: 'carol' },
    ],
  },
  mark: (v: Violation): Violation =>
    v.id === 'transition.backwards'
      ? { ...v, known: { entry: 0 } }
      : v.id === 'server.error' && v.evidence.status === 503
        ? { ...v, known: { entry: 1 } }
        : v,
};

describe('a summary with known deviations', () => {
  it('counts known findings by id and by entry, and fails only on the new ones', () => {
    const s = fixtureSummary(KNOWN);
    const byId = new Map(s.violations.map((v) => [v.id, v]));
    expect([byId.get('transition.backwards')?.count, byId.get('transition.backwards')?.known]).toEqual([
      3, 3,
    ]);
    expect([byId.get('server.error')?.count, byId.get('server.error')?.known]).toEqual([2, 1]);
    // The new one leads the examples.
    expect(byId.get('server.error')?.examples[0]?.evidence.status).toBe(500);
    expect(byId.get('server.error')?.exchanges).toEqual([{ op: 'status', status: 500, count: 1 }]);
    expect(s.known?.entries.map((e) => [e.state, e.findings])).toEqual([
      ['matched', 3],
      ['matched', 1],
      ['unseen', 0],
    ]);
    expect(s.verdict.status).toBe('failed');
    expect(s.verdict.reasons[0]).toBe('2 new violations: lifecycle.early-404 ×1, server.error ×1');
    expect(s.verdict.reasons).toContain('2 known deviations (4 findings), 2 new');
    expect(s.verdict.reasons.join('\n')).toContain(
      'known deviation route.missing (purge-queue) no longer seen: it matched nothing in this run; delete it from known.yaml',
    );
    // A threshold on violations counts what is new.
    expect(s.thresholds.find((t) => t.expression === 'count(violation:transition.*) == 0')?.value).toBe(0);
  });

  it('merges shards exactly, and in any order', () => {
    const whole = fixtureSummary(KNOWN);
    const a = mergeSummaries([shardSummary('1/2', KNOWN), shardSummary('2/2', KNOWN)]);
    const b = mergeSummaries([shardSummary('2/2', KNOWN), shardSummary('1/2', KNOWN)]);
    expect(withoutRun(a)).toEqual(withoutRun(whole));
    expect(withoutRun(b)).toEqual(withoutRun(whole));
  });

  it('reads back from summary.json as written, the verdict judged again the same', async () => {
    const s = fixtureSummary(KNOWN);
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-known-summary-'));
    await writeReports(s, dir, { reporters: ['json'] });
    expect(await readSummary(join(dir, 'summary.json'))).toEqual(s);
  });

  it('is shown in every report: counts, entries with why, and the one no longer seen', () => {
    const s = fixtureSummary(KNOWN);
    const text = renderTerminalSummary(s);
    expect(text).toContain('violations: 7 across 4 check ids (4 known)');
    expect(text).toContain('  ~ transition.backwards [error] ×3 known');
    expect(text).toContain('  ✗ server.error [error] ×2 (1 known)');
    expect(text).toContain('known deviations (known.yaml):');
    expect(text).toContain('  known transition.* ×3: PLAT-1: the queue replays — alice, until 2099-01-01');
    expect(text).toContain(
      '  no longer seen route.missing (purge-queue): matched nothing, delete it: PLAT-3 — carol',
    );
    const md = getReporter('markdown').render(s);
    expect(md).toContain('| `transition.backwards` | error | 3 known |');
    expect(md).toContain('| `server.error` | error | 2 (1 known) |');
    expect(md).toContain('### Known deviations (known.yaml)\n\n- known transition.* ×3');
    expect(md).toContain('| `transition.backwards` | ');
    const html = getReporter('html').render(s);
    expect(html).toContain('<h3>Known deviations (known.yaml)</h3>');
    expect(html).toContain('<td>3 known</td>');
    const junit = getReporter('junit').render(s);
    expect(junit).toContain(
      '<skipped message="known deviation: 3 findings accepted; PLAT-1: the queue replays (alice, until 2099-01-01)"/>',
    );
    expect(junit).toMatch(/name="server\.error"[^]*?<failure type="error" message="1× server answered 500/);
  });
});
