import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/cli.js';
import { htmlReporter } from '../../src/report/html-reporter.js';
import { markdownReporter } from '../../src/report/markdown-reporter.js';
import { writeReports } from '../../src/report/report-writer.js';
import { terminalReporter } from '../../src/report/terminal-reporter.js';
import type { Summary } from '../../src/report/summary.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { parseSummary, readSummary } from '../../src/report/summary-schema.js';
import { judgeVerdict } from '../../src/report/verdict.js';
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

function io(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    env: {},
    interrupt: new AbortController().signal,
    isTty: false,
  };
}

/** Each summary in its own report folder, as `jobstorm run` leaves it; thresholds dropped so exit codes speak of the merge. */
async function folders(...summaries: Summary[]): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'jobstorm-merge-cli-'));
  const dirs = summaries.map((_, i) => join(root, `in-${String(i + 1)}`));
  await Promise.all(
    summaries.map((s, i) => writeReports({ ...s, thresholds: [] }, dirs[i] ?? '', { reporters: ['json'] })),
  );
  return dirs;
}

async function merge(
  dirs: readonly string[],
  ...flags: string[]
): Promise<{ code: number; out: string; err: string; dir: string }> {
  const dir = join(dirs[0] ?? '', '..', 'merged');
  const term = io();
  const code = await runCli(['merge', ...dirs, '--out', dir, ...flags], term);
  return { code, out: term.stdout.join('\n'), err: term.stderr.join('\n'), dir };
}

const file = (dir: string | undefined): string => join(dir ?? '', 'summary.json');

function withRun(s: Summary, run: Partial<Summary['run']>): Summary {
  return { ...s, run: { ...s.run, ...run } };
}

describe('jobstorm merge refuses what cannot be merged', () => {
  it('the same folder twice (merge A A) is exit 2 naming it, writes nothing, and --force does not change that', async () => {
    const [a = ''] = await folders(shardSummary('1/2'));
    for (const flags of [[], ['--force']]) {
      const r = await merge([a, a], ...flags);
      expect(r.code).toBe(2);
      expect(r.err).toContain(
        `${file(a)} and ${file(a)} both hold run fixture-run shard 1/2: merging it twice would count its requests and jobs twice`,
      );
      expect(existsSync(r.dir)).toBe(false);
    }
  });

  it('two folders holding the same run and shard are refused, --force or not', async () => {
    const dirs = await folders(shardSummary('1/2'), shardSummary('2/2'), shardSummary('1/2'));
    const r = await merge(dirs, '--force');
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file(dirs[0])} and ${file(dirs[2])} both hold run fixture-run shard 1/2`);
    expect(r.err).not.toContain(file(dirs[1]));
  });

  it('a whole run with one of its own shards, or a merge with one of its parts, is refused', async () => {
    const whole = await merge(await folders(fixtureSummary(), shardSummary('2/2')), '--force');
    expect(whole.code).toBe(2);
    expect(whole.err).toContain('both hold run fixture-run:');

    const parts = await folders(
      withRun(shardSummary('1/2'), { id: 'night-1' }),
      withRun(shardSummary('2/2'), { id: 'night-2' }),
    );
    const first = await merge(parts);
    expect(first.code, first.err).toBe(1); // accepted: the fixture's own error violations make the merged verdict failed
    const again = await merge([first.dir, parts[1] ?? '']);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`${file(first.dir)} and ${file(parts[1])} both hold run night-2 shard 2/2`);
  });

  it('different scenarios are exit 2 naming both folders and scenarios; --force merges them and the summary says so', async () => {
    const dirs = await folders(shardSummary('1/2'), withRun(shardSummary('2/2'), { scenario: 'other' }));
    const refused = await merge(dirs);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`${file(dirs[0])} ran scenario "fixture" but ${file(dirs[1])} ran "other"`);
    expect(refused.err).toContain('add --force');
    expect(existsSync(refused.dir)).toBe(false);

    const forced = await merge(dirs, '--force');
    expect(forced.code, forced.err).toBe(1); // accepted: the fixture's own error violations make the merged verdict failed
    const merged = await readSummary(file(forced.dir));
    expect(merged.run.scenario).toBe('fixture + other');
    expect(merged.run.forced).toEqual([
      `${file(dirs[0])} ran scenario "fixture" but ${file(dirs[1])} ran "other"`,
    ]);
    expect(forced.err).toContain('merged with --force: ');
    expect(readFileSync(join(forced.dir, 'report.html'), 'utf8')).toContain(
      'Merged with --force from inputs that are not shards of one run',
    );
    // Forcing changes the labels, never the numbers.
    const unforced = { ...fixtureSummary(), thresholds: [] };
    expect(withoutRun(merged)).toEqual(withoutRun({ ...unforced, verdict: judgeVerdict(unforced) }));
  });

  it('different targets are exit 2 naming both targets', async () => {
    const dirs = await folders(
      shardSummary('1/2'),
      withRun(shardSummary('2/2'), { target: 'http://127.0.0.1:9/v2/other' }),
    );
    const r = await merge(dirs);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `${file(dirs[0])} ran against http://127.0.0.1:8080/v2/ep-fixture but ${file(dirs[1])} against http://127.0.0.1:9/v2/other`,
    );
  });

  it('different runs that are not shards of one run need --force: two whole runs, one slot twice, different shard counts', async () => {
    const cases: [Summary, Summary, string][] = [
      [
        withRun(fixtureSummary(), { id: 'monday' }),
        withRun(fixtureSummary(), { id: 'tuesday' }),
        'are different runs (monday and tuesday), not shards of one run',
      ],
      [
        withRun(shardSummary('1/2'), { id: 'monday' }),
        withRun(shardSummary('1/2'), { id: 'tuesday' }),
        'both hold shard 1/2, from different runs (monday and tuesday)',
      ],
      [
        withRun(shardSummary('1/2'), { id: 'a' }),
        withRun(shardSummary('2/2'), { id: 'b', shard: '2/3' }),
        '(shard 1/2) and ',
      ],
    ];
    for (const [one, two, reason] of cases) {
      const dirs = await folders(one, two);
      const refused = await merge(dirs);
      expect(refused.code, reason).toBe(2);
      expect(refused.err).toContain(reason);
      expect(refused.err).toContain(file(dirs[0]));
      expect(refused.err).toContain(file(dirs[1]));
      const forced = await merge(dirs, '--force');
      expect(forced.code, forced.err).toBe(1); // accepted: the fixture's own error violations make the merged verdict failed
      expect((await readSummary(file(forced.dir))).run.forced?.join('\n')).toContain(reason);
    }
  });

  it('shards of one run with their own run ids (as --shard names them) merge without --force and say nothing of forcing', async () => {
    const dirs = await folders(
      withRun(shardSummary('1/2'), { id: 'fixture-shard1of2' }),
      withRun(shardSummary('2/2'), { id: 'fixture-shard2of2' }),
    );
    const r = await merge(dirs);
    expect(r.code, r.err).toBe(1); // accepted: the fixture's own error violations make the merged verdict failed
    // Only the fixture's start spread (1.5 s) is worth a word; nothing of forcing.
    expect(r.err.trim()).toBe(
      'jobstorm: warning: the shards started 1.5 s apart: the per-second series are aligned by wall clock, so in the first and last 1.5 s not every shard was sending (start them together with --barrier or --start-at)',
    );
    const merged = await readSummary(file(r.dir));
    expect(merged.run.forced).toBeUndefined();
    expect(merged.run.id).toBe('fixture-shard1of2 + fixture-shard2of2');
  });

  it('different summary versions are exit 2 naming both files, even with --force', async () => {
    const dirs = await folders(shardSummary('1/2'), shardSummary('2/2'));
    const second = file(dirs[1]);
    writeFileSync(
      second,
      JSON.stringify({ ...(JSON.parse(readFileSync(second, 'utf8')) as object), version: 2 }),
    );
    const r = await merge(dirs, '--force');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `${file(dirs[0])} is summary version 1 but ${second} is version 2: summaries of different versions cannot be merged`,
    );
  });

  it(
    'two real runs of the same scenario against their own embedded emulators: refused as different runs and targets, merged with --force',
    { timeout: 60_000 },
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'jobstorm-merge-real-'));
      const dirs = [join(root, 'a'), join(root, 'b')];
      for (const out of dirs) {
        const term = io();
        const code = await runCli(
          ['run', 'scenarios/smoke.yaml', '--duration', '1s', '--quiet', '--out', out],
          term,
        );
        expect(code, term.stderr.join('\n')).toBe(0);
      }
      const [a, b] = await Promise.all(dirs.map((d) => readSummary(file(d))));
      const twice = await merge([dirs[0] ?? '', dirs[0] ?? '']);
      expect(twice.code).toBe(2);
      expect(twice.err).toContain(`both hold run ${a?.run.id ?? '?'}:`);
      const refused = await merge(dirs);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(
        `ran against ${a?.run.target ?? '?'} but ${file(dirs[1])} against ${b?.run.target ?? '?'}`,
      );
      expect(refused.err).toContain('are different runs');
      const forced = await merge(dirs, '--force');
      expect(forced.code, forced.err).toBe(0);
      const merged = await readSummary(file(forced.dir));
      expect(merged.jobs.submitted).toBe((a?.jobs.submitted ?? 0) + (b?.jobs.submitted ?? 0));
      expect(merged.run.forced?.length).toBe(2);
    },
  );
});

describe('merging shards that were generator-limited', () => {
  it("keeps every stretch in time order, the busiest shard's figures, and the verdict mark", () => {
    const one = shardSummary('1/2');
    const two = shardSummary('2/2');
    one.run.generator = { latenessP99Ms: 3, loopDelayP99Ms: 2, busyMax: 0.5 };
    two.run.generator = { latenessP99Ms: 40, loopDelayP99Ms: 25, busyMax: 0.98 };
    two.generatorLimited = [
      { at: 2000, durationMs: 3000, busy: 0.98, loopDelayP99Ms: 25, latenessP99Ms: 40 },
    ];
    const merged = mergeSummaries([one, two]);
    expect(merged.run.generator).toEqual({ latenessP99Ms: 40, loopDelayP99Ms: 25, busyMax: 0.98 });
    expect(merged.generatorLimited).toHaveLength(1);
    // At the same wall time as in the shard, counted from the merged run's start.
    expect((merged.generatorLimited?.[0]?.at ?? 0) + merged.run.startMs).toBe(two.run.startMs + 2000);
    expect(merged.verdict.generatorLimited).toBe(true);
    expect(merged.verdict.reasons.at(-1)).toContain('generator-limited');
    // A shard that was never limited leaves a merge of it unmarked.
    expect(mergeSummaries([one, shardSummary('2/2')]).verdict.generatorLimited).toBeUndefined();
  });
});

describe('arrivals that waited for a free connection', () => {
  it('are a line in every report, and a merge adds them up and keeps the longest wait', () => {
    const one = shardSummary('1/2');
    const two = shardSummary('2/2');
    one.run.connectionWait = { arrivals: 120, longestMs: 812, connections: 2 };
    two.run.connectionWait = { arrivals: 30, longestMs: 95, connections: 2 };
    const merged = mergeSummaries([one, two]);
    expect(merged.run.connectionWait).toEqual({ arrivals: 150, longestMs: 812, connections: 2 });
    // A shard that never waited adds nothing; none waited: no field, no line.
    expect(mergeSummaries([one, shardSummary('2/2')]).run.connectionWait).toEqual(one.run.connectionWait);
    expect(mergeSummaries([shardSummary('1/2'), shardSummary('2/2')]).run.connectionWait).toBeUndefined();
    const line =
      '150 arrivals waited for a free connection (all 2 busy), up to 812 ms past the intended start';
    for (const r of [terminalReporter, markdownReporter, htmlReporter])
      expect(r.render(merged)).toContain(line);
    expect(terminalReporter.render(shardSummary('1/2'))).not.toContain('waited for a free connection');
    // summary.json keeps it through a read.
    expect(
      parseSummary(JSON.parse(JSON.stringify(merged)) as unknown, 'summary.json').run.connectionWait,
    ).toEqual(merged.run.connectionWait);
  });
});
