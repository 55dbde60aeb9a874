import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { captureIo } from '../helpers/cli-io.js';

/*
 * Issue 53's configuration: --skip-check, --known and the scenario's checks: section are validated
 * once, every problem at once, each where it is (flag, file:line:column), an unknown check id with
 * the nearest one. Nothing is sent before: the target below counts nothing because there is none.
 */
const root = new URL('../..', import.meta.url).pathname;
const smoke = readFileSync(join(root, 'scenarios/smoke.yaml'), 'utf8');

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobstorm-known-config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function stderrOf(argv: string[]): Promise<{ code: number; err: string[] }> {
  const io = captureIo({ JOBSTORM_API_KEY: 'k' });
  const code = await runCli(argv, io);
  return { code, err: io.stderr.join('\n').split('\n') };
}

const BAD_KNOWN = `deviations:
  - check: request.unknwon-job
    why: typo in the id
    who: alice
  - check: request.missing-input
    message: "([unclosed"
    who: bob
    expires: 2026-02-30
    colour: red
`;

describe('known deviations and skipped checks, as configuration', () => {
  it('--skip-check and --known: every problem at once, each where it is, with a did-you-mean', async () => {
    const dir = folder({ 'known.yaml': BAD_KNOWN });
    const { code, err } = await stderrOf([
      'run',
      join(root, 'scenarios/smoke.yaml'),
      '--skip-check',
      'auth.missing-key-acepted=no authentication on the private network',
      '--skip-check',
      'request.method',
      '--known',
      join(dir, 'known.yaml'),
    ]);
    expect(code).toBe(ExitCode.Usage);
    const text = err.join('\n');
    expect(text).toContain(
      '--skip-check: "auth.missing-key-acepted" matches no check id; did you mean "auth.missing-key-accepted"?',
    );
    expect(text).toContain('--skip-check: "request.method": write ID=WHY');
    const at = (line: number, col: number): string =>
      `${join(dir, 'known.yaml')}:${String(line)}:${String(col)}`;
    expect(text).toContain(
      `${at(2, 12)}: deviations[0].check: "request.unknwon-job" matches no check id; did you mean "request.unknown-job"?`,
    );
    expect(text).toContain(`${at(6, 14)}: deviations[1].message: not a regular expression`);
    expect(text).toContain(`deviations[1].why: missing`);
    expect(text).toContain(`${at(8, 14)}: deviations[1].expires: expected a date (2026-03-31`);
    expect(text).toContain(`${at(9, 5)}: deviations[1].colour: unknown key "colour"`);
  });

  it("the scenario's checks: section, located in the scenario and in its known file", async () => {
    const dir = folder({
      'known.yaml':
        'deviations:\n  - check: "schema.*"\n    why: staging\n    who: carol\n  - check: nosuch.thing\n    why: x\n    who: y\n',
      'nightly.yaml': `${smoke}checks:\n  skip:\n    - check: "scaling.*"\n      why: the endpoint is shared\n    - check: health.negatve\n      why: typo\n  known: known.yaml\n`,
    });
    const { code, err } = await stderrOf(['run', join(dir, 'nightly.yaml')]);
    expect(code).toBe(ExitCode.Usage);
    const text = err.join('\n');
    const lines = smoke.split('\n').length;
    expect(text).toContain(
      `${join(dir, 'nightly.yaml')}:${String(lines + 4)}:14: checks.skip[1].check: "health.negatve" matches no check id; did you mean "health.negative"?`,
    );
    expect(text).toContain(
      `${join(dir, 'known.yaml')}:5:12: deviations[1].check: "nosuch.thing" matches no check id`,
    );
    // The glob that names checks is fine.
    expect(text).not.toContain('scaling.*');
    expect(text).not.toContain('schema.*');
  });

  it('a known file that cannot be read, and jobstorm known without why', async () => {
    const missing = await stderrOf([
      'check',
      join(root, 'test/report/fixtures/records.ndjson'),
      '--known',
      '/nonexistent/known.yaml',
    ]);
    expect(missing.code).toBe(ExitCode.Usage);
    expect(missing.err.join('\n')).toContain(
      '/nonexistent/known.yaml: cannot read the known-deviations file (ENOENT)',
    );
    const known = await stderrOf(['known', folder({}), '--why', ' ', '--who', 'alice', '--expires', 'soon']);
    expect(known.code).toBe(ExitCode.Usage);
    expect(known.err.join('\n')).toContain('--why: say why the findings are accepted for now');
    expect(known.err.join('\n')).toContain('--expires: expected a date (2026-03-31)');
    const past = await stderrOf([
      'known',
      folder({}),
      '--why',
      'w',
      '--who',
      'alice',
      '--expires',
      '2000-01-01',
    ]);
    expect(past.code).toBe(ExitCode.Usage);
    expect(past.err.join('\n')).toContain('--expires: 2000-01-01 has passed already');
  });
});
