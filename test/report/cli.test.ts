import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/cli.js';
import { writeReports } from '../../src/report/report-writer.js';
import type { Summary } from '../../src/report/summary.js';
import { readSummary } from '../../src/report/summary-schema.js';
import { withThresholds } from '../../src/report/summary-thresholds.js';
import { parseThresholds } from '../../src/report/threshold.js';
import { fixtureSummary, shardSummary, withoutRun } from './fixtures/fixture-summary.js';

function io(env: Record<string, string> = {}): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    env,
    interrupt: new AbortController().signal,
    isTty: false,
  };
}

async function shardDirs(strip = false): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'jobstorm-cli-'));
  const dirs = [join(root, 'shard-1'), join(root, 'shard-2')];
  const shards: Summary[] = [shardSummary('1/2'), shardSummary('2/2')].map((s) =>
    strip ? { ...s, thresholds: [] } : s,
  );
  await Promise.all(shards.map((s, i) => writeReports(s, dirs[i] ?? '', { reporters: ['json'] })));
  return dirs;
}

describe('jobstorm report', () => {
  it('rebuilds every report from summary.json, prints the summary, exits 1 on failed thresholds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-cli-'));
    await writeReports(fixtureSummary(), dir, { reporters: ['json'] });
    const step = join(dir, 'step.md');
    const term = io({ GITHUB_STEP_SUMMARY: step });
    const code = await runCli(['report', dir], term);
    expect(code).toBe(1);
    expect(term.stdout.join('\n')).toContain('thresholds: 3 passed, 6 failed');
    for (const f of ['summary.md', 'report.html', 'junit.xml'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readFileSync(step, 'utf8')).toContain('## jobstorm');
  });

  it("--threshold judges that rendering only: summary.json stays byte-identical and a later plain report gives the run's own verdict", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-cli-'));
    const own = fixtureSummary();
    // Only the thresholds the fixture passes, its violations as warnings, and its 1.2% of requests
    // without an answer allowed (its own bound on errors), so the run's own verdict is exit 0.
    const warnings = own.violations.map((v) => ({ ...v, severity: 'warning' as const }));
    const passing = withThresholds(
      { ...own, thresholds: own.thresholds.filter((t) => t.ok), violations: warnings },
      parseThresholds(['rate(errors) < 2%']),
    );
    expect(passing.verdict.status).toBe('passed');
    await writeReports(passing, dir, { reporters: ['json'] });
    const json = join(dir, 'summary.json');
    const hash = (): string => createHash('sha256').update(readFileSync(json)).digest('hex');
    const before = hash();

    const judged = io();
    expect(await runCli(['report', dir, '--threshold', 'count(violations) == 0'], judged)).toBe(1);
    expect(hash()).toBe(before);
    expect(judged.stdout.join('\n')).toContain('thresholds: 4 passed, 1 failed');
    expect(judged.stdout.join('\n')).not.toContain(join(dir, 'summary.json'));
    for (const f of ['summary.md', 'junit.xml', 'report.html'])
      expect(readFileSync(join(dir, f), 'utf8'), f).toContain('count(violations) == 0');

    const plain = io();
    expect(await runCli(['report', dir], plain)).toBe(0);
    expect(hash()).toBe(before);
    expect(plain.stdout.join('\n')).toContain('thresholds: 4 passed, 0 failed');
    for (const f of ['summary.md', 'junit.xml', 'report.html'])
      expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain('count(violations) == 0');
  });

  it('--out gets every report and an unchanged copy of summary.json, even with --threshold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-cli-'));
    await writeReports(fixtureSummary(), dir, { reporters: ['json'] });
    const original = readFileSync(join(dir, 'summary.json'));
    const out = join(dir, 'elsewhere');
    expect(await runCli(['report', dir, '--out', out, '--threshold', 'p50(health) < 1ms'], io())).toBe(1);
    expect(readFileSync(join(out, 'summary.json')).equals(original)).toBe(true);
    expect(readFileSync(join(dir, 'summary.json')).equals(original)).toBe(true);
    for (const f of ['summary.md', 'report.html', 'junit.xml'])
      expect(readFileSync(join(out, f), 'utf8'), f).toContain('p50(health)');
    expect(existsSync(join(dir, 'summary.md'))).toBe(false);
  });

  it('a missing summary.json is exit 2 naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobstorm-cli-'));
    const term = io();
    expect(await runCli(['report', dir], term)).toBe(2);
    expect(term.stderr.join('\n')).toContain(join(dir, 'summary.json'));
  });
});

describe('jobstorm merge', () => {
  it('merges shard folders exactly and exits 1 when re-evaluated thresholds fail', async () => {
    const dirs = await shardDirs();
    const out = join(dirs[0] ?? '', '..', 'merged');
    const term = io();
    expect(await runCli(['merge', ...dirs, '--out', out], term)).toBe(1);
    const merged = await readSummary(join(out, 'summary.json'));
    expect(withoutRun(merged)).toEqual(withoutRun(fixtureSummary()));
    expect(merged.run.shards).toEqual(['1/2', '2/2']);
    expect(term.stdout.join('\n')).toContain('merged 2 summaries');
  });

  it('judges every threshold (here from repeated --threshold) on the merge; its violations still fail the verdict', async () => {
    const dirs = await shardDirs(true);
    const out = join(dirs[0] ?? '', '..', 'merged');
    const term = io();
    const code = await runCli(
      [
        'merge',
        ...dirs,
        '--out',
        out,
        '--threshold',
        'count(violations) == 7',
        '--threshold',
        'p99(status{from=sent}) < 100ms',
      ],
      term,
    );
    // The fixture's shards started 1.5 s apart: more than a second, so the merge says so.
    expect(term.stderr).toEqual([expect.stringContaining('the shards started 1.5 s apart')]);
    // The shards carry error violations: thresholds that hold do not make the merged run pass.
    expect(code).toBe(1);
    expect((await readSummary(join(out, 'summary.json'))).verdict.status).toBe('failed');
    expect((await readSummary(join(out, 'summary.json'))).thresholds.map((t) => t.ok)).toEqual([true, true]);
  });

  it('a mistyped threshold metric exits 2 with the expression and a suggestion', async () => {
    const dirs = await shardDirs();
    const term = io();
    const code = await runCli(
      [
        'merge',
        ...dirs,
        '--out',
        join(dirs[0] ?? '', 'x'),
        '--threshold',
        'p99(stauts) < 1s',
        '--threshold',
        'rate(fialed) < 1%',
      ],
      term,
    );
    expect(code).toBe(2);
    const err = term.stderr.join('\n');
    expect(err).toContain('--threshold: "p99(stauts) < 1s": unknown metric "stauts"; did you mean "status"?');
    expect(err).toContain(
      '--threshold: "rate(fialed) < 1%": unknown metric "fialed"; did you mean "failed"?',
    );
  });

  it('bad inputs exit 2 naming every bad file', async () => {
    const dirs = await shardDirs();
    const [one = '', two = ''] = dirs;
    writeFileSync(join(one, 'summary.json'), '{"version":1}');
    writeFileSync(join(two, 'summary.json'), 'not json');
    const term = io();
    expect(await runCli(['merge', one, two, '--out', join(one, 'x')], term)).toBe(2);
    const err = term.stderr.join('\n');
    expect(err).toContain(`${join(one, 'summary.json')}: run`);
    expect(err).toContain(`${join(two, 'summary.json')}: not valid JSON`);
  });
});
