import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/core/manual-clock.js';
import type { JobstormRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { cliClock, runCliOnClock } from '../helpers/cli-on-clock.js';
import { captureIo } from '../helpers/cli-io.js';
import { expectRealEvidence } from './foreign-run.js';
import { startPartialServer, type PartialOptions, type PartialServer } from './partial-server.js';

/*
 * Issue 53, proven against a server that is not our emulator: it has two real deviations (/status of
 * a job that never existed answers 200 FAILED; a body without input is accepted). A nightly run with
 * a known-deviations file naming both passes, shows both as known in every report, and fails again
 * on a third deviation (naming only that one) or once an entry has expired; `jobstorm check` of the
 * records with the same file says the same. Runs go through the CLI on the test's manual clock,
 * which the server reads too (issue 46).
 */

const TWO_DEVIATIONS: PartialOptions = { unknownJobFound: true, inputOptional: true };
/** A third: /run answers IN_PROGRESS, which schema.run does not allow. */
const THREE_DEVIATIONS: PartialOptions = { ...TWO_DEVIATIONS, runStatus: 'IN_PROGRESS' };

const BOTH_KNOWN = `# accepted until the fixes ship
deviations:
  - check: request.unknown-job
    operation: status
    status: 200
    message: "status FAILED in its body"
    why: "PLAT-101: unknown ids answer FAILED until the v3 router"
    who: alice
    expires: 2099-12-31
  - check: request.missing-input
    why: "PLAT-102: input becomes required in May"
    who: bob
`;

/** The same, with the first entry run out the day before the run (the manual clock starts 2026-01-01). */
const ONE_EXPIRED = BOTH_KNOWN.replace('expires: 2099-12-31', 'expires: 2025-12-31');

interface Outcome {
  code: number;
  summary: Summary;
  text: string;
  md: string;
  html: string;
  junit: string;
  /** The records file's path. */
  recordsFile: string;
  records: JobstormRecord[];
  stderr: string;
}

let server: PartialServer | undefined;
let clock: ManualClock = cliClock();
beforeEach(() => {
  clock = cliClock();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const dir = (): string => mkdtempSync(join(tmpdir(), 'jobstorm-known-'));

function knownFile(text: string): string {
  const file = join(dir(), 'known.yaml');
  writeFileSync(file, text);
  return file;
}

async function run(options: PartialOptions, args: string[] = []): Promise<Outcome> {
  server = await startPartialServer({ ...options, clock });
  const out = dir();
  const io = captureIo({ JOBSTORM_API_KEY: 'foreign-test-key' });
  const argv = ['run', 'scenarios/smoke.yaml', '--target', server.base, '--duration', '3s'];
  const code = await runCliOnClock([...argv, '--out', out, '--record', ...args], io, { clock });
  const read = (f: string): string => readFileSync(join(out, f), 'utf8');
  return {
    code,
    summary: JSON.parse(read('summary.json')) as Summary,
    text: io.stdout.join('\n'),
    md: read('summary.md'),
    html: read('report.html'),
    junit: read('junit.xml'),
    recordsFile: join(out, 'records.ndjson'),
    records: read('records.ndjson')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JobstormRecord),
    stderr: io.stderr.join('\n'),
  };
}

/** `jobstorm check` of a run's records, with the flags given. */
async function check(records: string, args: string[] = []): Promise<{ code: number; text: string }> {
  const io = captureIo({});
  const code = await runCliOnClock(['check', records, ...args], io);
  return { code, text: [...io.stdout, ...io.stderr].join('\n') };
}

const newIds = (s: Summary): string[] =>
  s.violations
    .filter((v) => v.count > (v.known ?? 0))
    .map((v) => v.id)
    .sort();
const knownIds = (s: Summary): string[] =>
  s.violations
    .filter((v) => (v.known ?? 0) > 0)
    .map((v) => v.id)
    .sort();

/** The JUnit test case of a check id. */
function junitCase(junit: string, id: string): string {
  const at = junit.indexOf(`name="${id}"`);
  return junit.slice(at, junit.indexOf('</testcase>', at));
}

describe('a foreign server with two real deviations, and a known-deviations file', () => {
  it('without the file the run fails on both', async () => {
    const o = await run(TWO_DEVIATIONS);
    expect(o.code).toBe(1);
    expect(o.summary.verdict.status).toBe('failed');
    expect(newIds(o.summary)).toEqual(['request.missing-input', 'request.unknown-job']);
    expect(knownIds(o.summary)).toEqual([]);
    expect(o.summary.known).toBeUndefined();
    expectRealEvidence(o);
  }, 90_000);

  it('with both known it passes, and every report shows both as known, with why', async () => {
    const known = knownFile(BOTH_KNOWN);
    const o = await run(TWO_DEVIATIONS, ['--known', known]);
    expect(o.code).toBe(0);
    expect(o.summary.verdict.status).toBe('passed');
    // Shown and counted, never hidden.
    expect(knownIds(o.summary)).toEqual(['request.missing-input', 'request.unknown-job']);
    expect(newIds(o.summary)).toEqual([]);
    const findings = o.summary.violations.reduce((n, v) => n + (v.known ?? 0), 0);
    expect(findings).toBeGreaterThanOrEqual(2);
    const headline = `2 known deviations (${String(findings)} findings), 0 new`;
    expect(o.summary.verdict.reasons[0]).toContain(headline);
    expect(o.text).toContain(`verdict: PASSED — ${headline}`);
    expect(o.md).toContain(`**PASSED**: ${headline}`);
    expect(o.html).toContain(`PASSED</strong> — ${headline}`);
    expect(o.summary.known?.entries.map((e) => e.state)).toEqual(['matched', 'matched']);
    for (const report of [o.text, o.md, o.html]) {
      expect(report).toContain('PLAT-101: unknown ids answer FAILED until the v3 router');
      expect(report).toContain('PLAT-102: input becomes required in May');
    }
    expect(o.md).toMatch(/request\.unknown-job` \| error \| \d+ known \|/);
    expect(o.text).toMatch(/~ request\.missing-input \[error\] ×\d+ known/);
    // JUnit: known ones skipped, with the reason.
    expect(junitCase(o.junit, 'request.unknown-job')).toContain('<skipped message="known deviation: ');
    expect(junitCase(o.junit, 'request.unknown-job')).toContain('PLAT-101');
    expect(junitCase(o.junit, 'request.missing-input')).toContain(
      'PLAT-102: input becomes required in May (bob)',
    );
    expect(o.junit).not.toContain('<failure type="error"');
    expect(o.junit).toContain('<property name="verdict" value="passed"/>');
    expectRealEvidence(o);
  }, 90_000);

  it('a third deviation injected into the server fails the run and names only the new one', async () => {
    const known = knownFile(BOTH_KNOWN);
    const o = await run(THREE_DEVIATIONS, ['--known', known]);
    expect(o.code).toBe(1);
    expect(o.summary.verdict.status).toBe('failed');
    expect(newIds(o.summary)).toEqual(['schema.run']);
    expect(knownIds(o.summary)).toEqual(['request.missing-input', 'request.unknown-job']);
    const [headline = '', ...rest] = o.summary.verdict.reasons;
    expect(headline).toMatch(/^\d+ new violations?: schema\.run ×\d+$/);
    expect(rest.join('\n')).toMatch(/2 known deviations \(\d+ findings\), \d+ new/);
    expect(o.text).toMatch(/verdict: FAILED — \d+ new violations?: schema\.run ×\d+\n/);
    expect(junitCase(o.junit, 'schema.run')).toContain('<failure type="error"');
    expect(junitCase(o.junit, 'request.unknown-job')).toContain('<skipped message="known deviation');
    expect(junitCase(o.junit, 'request.missing-input')).toContain('<skipped message="known deviation');
    expect(o.junit.match(/<failure type="error"/g)).toHaveLength(1);
  }, 90_000);

  it('an entry that has expired stops matching and says so: its finding fails the run again', async () => {
    const known = knownFile(ONE_EXPIRED);
    const o = await run(TWO_DEVIATIONS, ['--known', known]);
    expect(o.code).toBe(1);
    expect(newIds(o.summary)).toEqual(['request.unknown-job']);
    expect(knownIds(o.summary)).toEqual(['request.missing-input']);
    expect(o.summary.known?.entries.map((e) => e.state)).toEqual(['expired', 'matched']);
    expect(o.summary.verdict.reasons[0]).toMatch(/^\d+ new violations?: request\.unknown-job ×\d+$/);
    expect(o.summary.verdict.reasons.join('\n')).toMatch(
      /known deviation request\.unknown-job \(status, 200, message \/status FAILED in its body\/\) expired \(2025-12-31\): its \d+ findings? count as new again/,
    );
    expect(junitCase(o.junit, 'request.unknown-job')).toContain('<failure type="error"');
  }, 90_000);

  it('offline jobstorm check of the records gives the same result with the same file', async () => {
    // Recorded without the file: the records carry no entries, so the file given offline decides.
    const plain = await run(TWO_DEVIATIONS);
    expect(plain.code).toBe(1);
    const without = await check(plain.recordsFile);
    expect(without.code).toBe(1);
    const withBoth = await check(plain.recordsFile, ['--known', knownFile(BOTH_KNOWN)]);
    expect(withBoth.code, withBoth.text).toBe(0);
    expect(withBoth.text).toMatch(/2 known deviations \(\d+ findings\), 0 new/);
    const withExpired = await check(plain.recordsFile, ['--known', knownFile(ONE_EXPIRED)]);
    expect(withExpired.code).toBe(1);
    expect(withExpired.text).toMatch(/✗ request\.unknown-job ×\d+:/);
    expect(withExpired.text).toMatch(/~ request\.missing-input ×\d+ known:/);
    expect(withExpired.text).toContain('expired (2025-12-31)');
    // A run with the file, and its records checked again: the records carry its entries.
    const third = await run(THREE_DEVIATIONS, ['--known', knownFile(BOTH_KNOWN)]);
    const again = await check(third.recordsFile);
    expect(again.code).toBe(third.code);
    expect(again.text).toMatch(/✗ schema\.run ×\d+:/);
    expect(again.text).toMatch(/~ request\.unknown-job ×\d+ known:/);
    expect(again.text).toMatch(/2 known deviations \(\d+ findings\), \d+ new/);
  }, 120_000);
});
