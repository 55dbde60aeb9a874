import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Comparison } from '../../src/compare/compare-data.js';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { RunRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';
import { startPartialServer, type PartialOptions, type PartialServer } from './partial-server.js';

/*
 * Issue 53 as a team uses it, against a foreign server with real deviations: checks skipped with
 * why (flag and scenario), a scenario's own known file with an entry that no longer matches,
 * `jobstorm known` writing the file that makes the next run pass, and `jobstorm compare` counting
 * known findings like any other. Through the CLI, on the manual clock the server reads too.
 */

const root = new URL('../..', import.meta.url).pathname;
const smoke = readFileSync(join(root, 'scenarios/smoke.yaml'), 'utf8');
const TWO: PartialOptions = { unknownJobFound: true, inputOptional: true };
const THREE: PartialOptions = { ...TWO, runStatus: 'IN_PROGRESS' };

let server: PartialServer | undefined;
let clock: ManualClock = cliClock();
beforeEach(() => {
  clock = cliClock();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const dir = (): string => mkdtempSync(join(tmpdir(), 'jobstorm-known-flow-'));

interface Outcome {
  code: number;
  out: string;
  summary: Summary;
  text: string;
  read: (file: string) => string;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
  const code = await runCliOnClock(argv, io, { clock });
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

/** A run of `scenario` against a fresh server with `options`; the same server and clock for `args`. */
async function run(options: PartialOptions, scenario: string, args: string[] = []): Promise<Outcome> {
  await server?.close();
  server = await startPartialServer({ ...options, clock });
  const out = dir();
  const r = await cli(['run', scenario, '--target', server.base, '--out', out, '--record', ...args]);
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  return { code: r.code, out, summary: JSON.parse(read('summary.json')) as Summary, text: r.stdout, read };
}

function scenarioFile(extra: string, files: Record<string, string> = {}): string {
  const at = dir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(at, name), text);
  const file = join(at, 'nightly.yaml');
  writeFileSync(file, `${smoke.replace('duration: 4s', 'duration: 3s')}${extra}`);
  return file;
}

describe('skipped checks and a scenario of its own known file', () => {
  it('a skipped check is not run, counts as not exercised, and every report says why; so does check', async () => {
    const scenario = scenarioFile(
      `checks:
  skip:
    - check: request.missing-input
      why: "PLAT-102: input becomes required in May"
  known: known.yaml
`,
      {
        'known.yaml': `deviations:
  - check: request.unknown-job
    why: "PLAT-101: the v3 router"
    who: alice
  - check: route.missing
    operation: purge-queue
    why: "PLAT-103: /purge-queue is not deployed yet"
    who: carol
`,
      },
    );
    const o = await run(TWO, scenario, ['--skip-check', 'auth.*=no authentication on the private network']);
    expect(o.code).toBe(0);
    expect(o.summary.verdict.status).toBe('passed');
    expect(o.summary.violations.map((v) => v.id)).toEqual(['request.unknown-job']);
    expect(o.summary.coverage['request.missing-input']).toBe(0);
    expect(o.summary.skipped).toEqual({
      'request.missing-input': 'PLAT-102: input becomes required in May',
      'auth.missing-key-accepted': 'no authentication on the private network',
      'auth.wrong-key-accepted': 'no authentication on the private network',
      'auth.form-rejected': 'no authentication on the private network',
    });
    const why = 'request.missing-input: PLAT-102: input becomes required in May';
    expect(o.text).toContain(`skipped checks:\n  ${why}`);
    expect(o.read('summary.md')).toContain(`### Skipped checks\n\n- ${why}`);
    expect(o.read('summary.md')).toContain(
      '| `request.missing-input` | 0 | skipped: PLAT-102: input becomes required in May |',
    );
    expect(o.read('report.html')).toContain(`<h3>Skipped checks</h3><ul><li>${why}</li>`);
    expect(o.read('junit.xml')).toContain(
      '<testcase classname="jobstorm.checks.request" name="request.missing-input" time="0">\n      <skipped message="skipped: PLAT-102: input becomes required in May"/>',
    );
    // The scenario's entry for a route the target serves after all: no longer seen, time to delete it.
    expect(o.summary.known?.entries.map((e) => e.state)).toEqual(['matched', 'unseen']);
    expect(o.summary.verdict.reasons.join('\n')).toContain(
      'known deviation route.missing (purge-queue) no longer seen: it matched nothing in this run; delete it from',
    );
    expect(o.text).toContain('no longer seen route.missing (purge-queue): matched nothing, delete it');
    // The records carry both, so jobstorm check of them skips and accepts the same.
    const runLine = JSON.parse(o.read('records.ndjson').split('\n')[0] ?? '') as RunRecord;
    expect(runLine.skipChecks?.map((s) => s.check)).toEqual(['request.missing-input', 'auth.*']);
    expect(runLine.known?.entries).toHaveLength(2);
    const offline = await cli(['check', join(o.out, 'records.ndjson')]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain(`skipped checks:\n  ${why}`);
    expect(offline.stdout).toMatch(/~ request\.unknown-job ×\d+ known/);
    expect(offline.stdout).not.toContain('✗');
  }, 90_000);
});

describe('jobstorm known <run>', () => {
  it("writes the file that accepts a run's findings; a run with it passes, and it drops what is gone", async () => {
    const scenario = scenarioFile('');
    const first = await run(THREE, scenario);
    expect(first.code).toBe(1);
    const file = join(dir(), 'known.yaml');
    const made = await cli([
      'known',
      first.out,
      '--why',
      'PLAT-7',
      '--who',
      'dana',
      '--expires',
      '2026-06-30',
      '--out',
      file,
    ]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/0 entries kept, \d+ added for new findings/);
    const written = parse(readFileSync(file, 'utf8')) as { deviations: Record<string, unknown>[] };
    expect(written.deviations).toContainEqual({
      check: 'schema.run',
      operation: 'run',
      status: 200,
      why: 'PLAT-7',
      who: 'dana',
      expires: '2026-06-30',
    });
    expect(new Set(written.deviations.map((d) => d.check))).toEqual(
      new Set(['request.missing-input', 'request.unknown-job', 'schema.run']),
    );
    const second = await run(THREE, scenario, ['--known', file]);
    expect(second.code, second.summary.verdict.reasons.join('\n')).toBe(0);
    expect(second.summary.violations.every((v) => v.known === v.count)).toBe(true);
    // The third deviation fixed: its entry matches nothing, and the next file leaves it out.
    const third = await run(TWO, scenario, ['--known', file]);
    expect(third.code).toBe(0);
    expect(third.summary.known?.entries.find((e) => e.check === 'schema.run')?.state).toBe('unseen');
    const next = join(dir(), 'known.yaml');
    const again = await cli(['known', third.out, '--why', 'later', '--who', 'erin', '--out', next]);
    expect(again.stderr).toContain('left out schema.run (run, 200): no longer seen in this run');
    const kept = parse(readFileSync(next, 'utf8')) as { deviations: Record<string, unknown>[] };
    expect(new Set(kept.deviations.map((d) => d.check))).toEqual(
      new Set(['request.missing-input', 'request.unknown-job']),
    );
    // Kept as they were written, not with the new why.
    expect(kept.deviations.every((d) => d.why === 'PLAT-7' && d.who === 'dana')).toBe(true);
  }, 120_000);
});

describe('jobstorm compare and known findings', () => {
  it('counts them like any other: a known finding whose count jumps is a change', async () => {
    const file = join(dir(), 'known.yaml');
    writeFileSync(
      file,
      'deviations:\n  - check: "request.*"\n    why: "PLAT-101, PLAT-102"\n    who: alice\n',
    );
    const short = await run(TWO, join(root, 'scenarios/smoke.yaml'), ['--known', file, '--duration', '2s']);
    const long = await run(TWO, join(root, 'scenarios/smoke.yaml'), ['--known', file, '--duration', '8s']);
    expect([short.code, long.code]).toEqual([0, 0]);
    // In each run, a threshold on violations counts only what is new: nothing.
    expect(long.summary.thresholds.find((t) => t.expression === 'violations == 0')?.value).toBe(0);
    const count = (s: Summary): number =>
      s.violations.find((v) => v.id === 'request.unknown-job')?.count ?? 0;
    expect(count(long.summary)).toBeGreaterThan(2 * count(short.summary));
    const out = dir();
    const cmp = await cli([
      'compare',
      short.out,
      long.out,
      '--gate',
      'delta(violation:request.unknown-job) < 50%',
      '--gate',
      'delta(violations) < 50%',
      '--out',
      out,
      // Two durations of the same load: the few seconds of the short one offer a rate a little apart.
      '--force',
    ]);
    expect(cmp.code, cmp.stderr).toBe(1);
    const json = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as Comparison;
    expect(json.gates.map((g) => g.status)).toEqual(['failed', 'failed']);
    const row = json.checks.find((c) => c.id === 'request.unknown-job');
    expect(row).toMatchObject({
      baselineViolations: count(short.summary),
      currentViolations: count(long.summary),
    });
    const total = json.deltas.find((d) => d.metric === 'count(violations)');
    expect(total?.current).toBe(long.summary.violations.reduce((n, v) => n + v.count, 0));
    expect(total?.direction).toBe('worse');
  }, 120_000);
});
