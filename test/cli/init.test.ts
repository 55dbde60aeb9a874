import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSummary, root, tempDir } from '../e2e/helpers.js';

/*
 * Issue 13 item 8: `jobstorm init` writes a starter scenario that runs as it is against the
 * emulator and names what to use next. Through the built bin, in a fresh folder, as a user runs it.
 */

const bin = join(root, 'dist/cli/main.js');
// Nothing from the caller's environment may point the runs away from the emulator.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JOBSTORM_')));

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function jobstorm(args: string[], cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

let work = '';

beforeAll(async () => {
  expect(existsSync(bin)).toBe(true);
  work = await tempDir('init');
}, 180_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function folder(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  return dir;
}

async function expectRunsAsItIs(dir: string, file: string, extra: string[] = []): Promise<void> {
  // One second: the starter's first arrivals, polls and /health sample; its 30 s prove nothing more.
  const run = await jobstorm(['run', file, '--duration', '1s', '--out', 'out', ...extra], dir);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const summary = await readSummary(join(dir, 'out'));
  expect(summary.run.scenario).toBe('starter');
  expect(summary.jobs.submitted).toBeGreaterThan(0);
  expect(Object.keys(summary.operations)).toEqual(expect.arrayContaining(['run', 'status', 'health']));
}

// Side by side: each case is its own folder and its own processes of the built bin, which mostly wait.
describe.concurrent('jobstorm init', () => {
  it('writes load.yaml with comments; it runs against the emulator as it is; output and comments name --target and the key', async () => {
    const dir = await folder('yaml');
    const init = await jobstorm(['init'], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote load.yaml');
    expect(init.stdout).toContain('npx jobstorm run load.yaml\n');
    expect(init.stdout).toContain('export JOBSTORM_API_KEY=');
    expect(init.stdout).toContain('npx jobstorm run load.yaml --target https://');
    const text = await readFile(join(dir, 'load.yaml'), 'utf8');
    expect(text).toMatch(/^# A starter jobstorm scenario/);
    expect(text).toContain('#   npx jobstorm run load.yaml --target https://api.example.com/v2/<endpointId>');
    expect(text).toContain('#   export JOBSTORM_API_KEY=');
    // Microseconds as a threshold unit (item 9), through the bin: 60 s is 60,000,000 µs.
    await expectRunsAsItIs(dir, 'load.yaml', [
      '--threshold',
      'p99(health) < 60000000µs',
      '--threshold',
      'max(run) < 60000000us',
    ]);
    const { thresholds } = await readSummary(join(dir, 'out'));
    expect(
      thresholds
        .filter((t) => t.expression.endsWith('us') || t.expression.endsWith('µs'))
        .map((t) => [t.expression, t.ok]),
    ).toEqual([
      ['p99(health) < 60000000µs', true],
      ['max(run) < 60000000us', true],
    ]);
  }, 120_000);

  it('writes load.ts with --ts; it runs as it is where jobstorm is installed', async () => {
    const dir = await folder('ts');
    // "npm i -D jobstorm", as the package itself: its import of 'jobstorm' resolves here.
    await mkdir(join(dir, 'node_modules'));
    await symlink(root, join(dir, 'node_modules', 'jobstorm'), 'dir');
    const init = await jobstorm(['init', '--ts'], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote load.ts, a starter TypeScript scenario');
    expect(init.stdout).not.toContain('npm i -D jobstorm');
    const text = await readFile(join(dir, 'load.ts'), 'utf8');
    expect(text).toContain("import { defineScenario } from 'jobstorm';");
    expect(text).toContain('//   npx jobstorm run load.ts --target https://');
    await expectRunsAsItIs(dir, 'load.ts');
  }, 120_000);

  it('says to install jobstorm when the TypeScript starter could not import it', async () => {
    const dir = await folder('ts-alone');
    const init = await jobstorm(['init', '--ts', 'scenarios/'], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote scenarios/load.ts');
    expect(init.stdout).toContain('npm i -D jobstorm');
    expect(existsSync(join(dir, 'scenarios', 'load.ts'))).toBe(true);
  });

  it('refuses to overwrite a file (exit 2, file untouched) unless --force', async () => {
    const dir = await folder('exists');
    await writeFile(join(dir, 'mine.yaml'), 'name: mine\n');
    const refused = await jobstorm(['init', 'mine.yaml'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'mine.yaml: already exists; jobstorm init leaves it as it is (pass --force to replace it)',
    );
    expect(await readFile(join(dir, 'mine.yaml'), 'utf8')).toBe('name: mine\n');
    const forced = await jobstorm(['init', 'mine.yaml', '--force'], dir);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(dir, 'mine.yaml'), 'utf8')).toContain('npx jobstorm run mine.yaml');
  });

  it('refuses a file name it cannot write a scenario as, and --ts with a YAML name, exit 2', async () => {
    const dir = await folder('names');
    const txt = await jobstorm(['init', 'notes.txt'], dir);
    expect(txt.code).toBe(2);
    expect(txt.stderr).toContain(
      'notes.txt: jobstorm init writes a .yaml, .yml, .ts, .mts, .cts file; ".txt" is none of them',
    );
    const mixed = await jobstorm(['init', '--ts', 'load.yaml'], dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--ts: --ts writes TypeScript, but load.yaml is a YAML file name');
    expect(existsSync(join(dir, 'notes.txt')) || existsSync(join(dir, 'load.yaml'))).toBe(false);
  });
});
