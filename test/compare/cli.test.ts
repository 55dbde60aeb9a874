import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';
import { BASELINE_FILE, CURRENT_FILE, fixture } from './fixtures/compare-fixture.js';

/** Run folders in a temporary directory, each holding a summary.json (changed by `edit`). */
async function runFolder(
  root: string,
  name: string,
  file: string,
  edit: (s: Summary) => void = () => undefined,
): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const s = fixture(file);
  edit(s);
  await writeFile(join(dir, 'summary.json'), JSON.stringify(s));
  return dir;
}

async function compare(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(env);
  const code = await runCli(['compare', ...args], io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

describe('jobstorm compare', () => {
  it('writes compare.json, .md, .html and compare-junit.xml into <current>/compare, appends the step summary, exits 1 on a failed gate', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const cur = await runFolder(root, 'cur', CURRENT_FILE);
    const stepSummary = join(root, 'step-summary.md');
    await writeFile(stepSummary, 'before\n');
    const r = await compare(
      [base, cur, '--gate', 'delta(p50(executionTime)) < 10%', '--gate', 'new(violations) == 0'],
      { GITHUB_STEP_SUMMARY: stepSummary },
    );
    expect(r.code, r.err).toBe(ExitCode.Failed);
    for (const f of ['compare.json', 'compare.md', 'compare.html', 'compare-junit.xml'])
      expect(existsSync(join(cur, 'compare', f)), f).toBe(true);
    const json = JSON.parse(await readFile(join(cur, 'compare', 'compare.json'), 'utf8')) as {
      version: number;
      verdict: { status: string };
    };
    expect(json).toMatchObject({ version: 1, verdict: { status: 'failed' } });
    const summary = await readFile(stepSummary, 'utf8');
    expect(summary.startsWith('before\n## jobstorm compare')).toBe(true);
    // The console gets plain text (issue 34): compare.md, not the terminal, carries the Markdown.
    expect(r.out).toContain('✗ FAILED  delta(p50(executionTime)) < 10%');
    expect(r.out).not.toMatch(/\*\*|^\s*\|/m);
  });

  it('two copies of one run: no significant change, gates pass, exit 0; a summary.json path works as well as its folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const again = await runFolder(root, 'again', BASELINE_FILE);
    const out = join(root, 'out');
    const r = await compare([
      join(base, 'summary.json'),
      again,
      '--gate',
      'delta(p99(run)) < 10%',
      '--significance',
      '0.95',
      '--out',
      out,
    ]);
    expect(r.code, r.out + r.err).toBe(ExitCode.Ok);
    expect(r.out).toContain('No significant change');
    expect(existsSync(join(out, 'compare.md'))).toBe(true);
  });

  it('a gate on a metric one side lacks is inconclusive (exit 4)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const cur = await runFolder(root, 'cur', BASELINE_FILE, (s) => {
      delete s.operations.health;
    });
    const r = await compare([base, cur, '--gate', 'delta(p99(health)) < 10%']);
    expect(r.code).toBe(ExitCode.Inconclusive);
    expect(r.out).toContain('no data for p99(health) in the current run');
  });

  it('a current run that was interrupted (summary verdict) makes the comparison inconclusive (exit 4)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const cut = await runFolder(root, 'cut', BASELINE_FILE, (s) => {
      // The verdict is judged again from the data when read: the run's end is what makes it interrupted.
      s.run.end = 'interrupted';
    });
    const r = await compare([base, cut]);
    expect(r.code).toBe(ExitCode.Inconclusive);
    expect(r.out).toContain('the current run was interrupted');
  });

  it('an unknown metric is a configuration error (exit 2) naming the gate; nothing is written', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const r = await compare([base, base, '--gate', 'delta(p99(runn)) < 10%']);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.err).toContain('--gate: gate "delta(p99(runn)) < 10%": unknown metric "runn"');
    expect(existsSync(join(base, 'compare'))).toBe(false);
    // A check id no check has (issue 47 item 3): every such gate named at once, with a did-you-mean.
    const ids = await compare([
      base,
      base,
      '--gate',
      'new(violation:nosuch) == 0',
      '--gate',
      'vanished(violation:transition.bakwards) == 0',
    ]);
    expect(ids.code).toBe(ExitCode.Usage);
    expect(ids.err).toContain('gate "new(violation:nosuch) == 0": "violation:nosuch" matches no check id');
    expect(ids.err).toContain('did you mean "violation:transition.backwards"?');
    expect(existsSync(join(base, 'compare'))).toBe(false);
    const r2 = await compare([base, base, '--significance', '1.5']);
    expect(r2.code).toBe(ExitCode.Usage);
    expect(r2.err).toContain('--significance: a confidence level between 0 and 1');
  });

  it('refuses runs of different scenarios, kinds of target or rates, saying why (exit 2); --force compares them anyway', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const other = await runFolder(root, 'other', BASELINE_FILE, (s) => {
      s.run.scenario = 'ramp';
      s.run.ownsEndpoint = false;
    });
    const r = await compare([base, other]);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.err).toContain('different scenarios: the baseline ran "compare-quiet", the current run "ramp"');
    expect(r.err).toContain(
      'different kinds of target: the baseline ran against the embedded emulator, the current run against a URL',
    );
    const doubled = await runFolder(root, 'doubled', BASELINE_FILE, (s) => {
      const run = s.operations.run;
      if (run) run.requests *= 2;
    });
    const r2 = await compare([base, doubled]);
    expect(r2.code).toBe(ExitCode.Usage);
    expect(r2.err).toMatch(
      /different offered rates: 14\.8\/s in the baseline, 29\.6\/s now.*not a regression.*--force/,
    );
    // A few seconds at a low rate: the same rate with a few submissions more is luck, not a new rate.
    const lucky = await runFolder(root, 'lucky', BASELINE_FILE, (s) => {
      const run = s.operations.run;
      if (run) run.requests += 6;
    });
    expect((await compare([base, lucky])).code).toBe(ExitCode.Ok);
    const forced = await compare([base, other, '--force']);
    expect(forced.code).toBe(ExitCode.Ok);
    expect(forced.out).toContain('Compared with --force although: different scenarios');
  });

  it("reads gates and significance from a scenario's compare: section", async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const cur = await runFolder(root, 'cur', CURRENT_FILE, (s) => {
      s.coverage = { ...s.coverage, 'webhook.delivered': 3 };
    });
    const scenario = join(root, 'scenario.yaml');
    await writeFile(
      scenario,
      [
        'name: compare-quiet',
        'phases: [{ duration: 3s, rate: 20 }]',
        'flows: [{ name: f, steps: [{ health: {} }] }]',
        'compare:',
        '  significance: 0.95',
        '  gates:',
        '    - "delta(p99(run)) < 10%"',
        '    - "delta(p50(executionTime)) < 10%"',
        '',
      ].join('\n'),
    );
    const r = await compare([base, cur, '--scenario', scenario]);
    expect(r.code, r.err).toBe(ExitCode.Failed);
    expect(r.out).toContain('significant (confidence');
    await writeFile(scenario, (await readFile(scenario, 'utf8')).replace('p99(run)', 'p99(rnu)'));
    const bad = await compare([base, cur, '--scenario', scenario]);
    expect(bad.code).toBe(ExitCode.Usage);
    expect(bad.err).toContain(
      `${scenario}: compare.gates[0]: gate "delta(p99(rnu)) < 10%": unknown metric "rnu"`,
    );
  });

  it('a missing or broken input names the file (exit 2)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'jobstorm-compare-'));
    const base = await runFolder(root, 'base', BASELINE_FILE);
    const broken = join(root, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, 'summary.json'), '{"version": 1, "run": {}}');
    const r = await compare([join(root, 'nowhere'), broken]);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.err).toContain(`${join(root, 'nowhere')}: cannot read summary`);
    expect(r.err).toContain(`${join(broken, 'summary.json')}: run.id`);
    expect(existsSync(join(base, 'compare'))).toBe(false);
  });
});
