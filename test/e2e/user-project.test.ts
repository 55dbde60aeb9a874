import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSummary, root, tempDir } from './helpers.js';

/*
 * Issue 13 item 5: a TypeScript scenario in a user's own project, as a new user writes it:
 * `npm init -y && npm i jobstorm`, `import { defineScenario } from 'jobstorm'` in load.ts, then
 * `npx jobstorm run load.ts`. The package is the packed tarball (`npm pack` of the dist/ the suite
 * built), installed into a fresh project, the `npm init -y` default (CommonJS); a second fresh
 * project with `"type": "module"` holds the same install (see esmProject). Dependencies come from
 * the npm cache. Each run lasts a second: what it proves (the scenario file loads and runs to a summary)
 * does not grow with its length.
 */

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

// The user's environment, minus anything that would point the run elsewhere than the emulator.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JOBSTORM_')));

function sh(command: string, args: string[], cwd: string): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

async function ok(command: string, args: string[], cwd: string): Promise<void> {
  const exit = await sh(command, args, cwd);
  expect(exit.code, `${command} ${args.join(' ')} in ${cwd}\n${exit.stderr}`).toBe(0);
}

const SCENARIO_BODY = `{
  name: 'user-project',
  phases: [{ duration: '2s', rate: 2 }],
  flows: [
    {
      name: 'submit',
      steps: [{ run: { input: { sleep_ms: 10 } } }, { poll: { until: 'final', interval: '100ms', timeout: '5s' } }],
    },
  ],
}`;
const IMPORTED = `import { defineScenario } from 'jobstorm';\n\nconst rate: number = 2;\nexport default defineScenario(${SCENARIO_BODY.replace('rate: 2', 'rate')});\n`;
const REQUIRED = `const { defineScenario } = require('jobstorm');\n\nmodule.exports = defineScenario(${SCENARIO_BODY});\n`;
// Line 5, column 23: the second comma.
const BROKEN = `import { defineScenario } from 'jobstorm';\n\nexport default defineScenario({\n  phases: [{ count: 1 }],\n  name: 'broken-here',,\n});\n`;

let work = '';
let tarball = '';
let commonjs: Promise<string>;
let esm: Promise<string>;

/** The `npm init -y` default (CommonJS) with the tarball installed, as a new user makes it. */
async function commonjsProject(): Promise<string> {
  const dir = join(work, 'commonjs');
  await mkdir(dir);
  await ok('npm', ['init', '-y'], dir);
  await ok('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], dir);
  return dir;
}

/**
 * A project made ESM (`npm pkg set type=module`) holding what `npm install` of the tarball left in
 * the CommonJS one: node_modules hard-linked, the lockfile and the dependency copied. npm lays out
 * the same tree whatever the project's "type", so a second install (the most costly step of the
 * file in CPU) would prove nothing the first did not; what differs is how Node and tsx load the
 * scenario files, and the runs below prove that.
 */
async function esmProject(installed: string): Promise<string> {
  const dir = join(work, 'esm');
  await mkdir(dir);
  await ok('npm', ['init', '-y'], dir);
  await ok('npm', ['pkg', 'set', 'type=module'], dir);
  await ok('cp', ['-al', join(installed, 'node_modules'), join(dir, 'node_modules')], work);
  await copyFile(join(installed, 'package-lock.json'), join(dir, 'package-lock.json'));
  const pkg = (file: string): Promise<Record<string, unknown>> =>
    readFile(file, 'utf8').then((t) => JSON.parse(t) as Record<string, unknown>);
  const [own, theirs] = await Promise.all([
    pkg(join(dir, 'package.json')),
    pkg(join(installed, 'package.json')),
  ]);
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ ...own, dependencies: theirs.dependencies }, null, 2)}\n`,
  );
  return dir;
}

/**
 * `npx jobstorm run FILE` as the user types it, or (`bin`) the project's node_modules/.bin/jobstorm
 * that npx resolves it to: one npx run in each project proves the resolution, and the other files'
 * runs, which prove how their module flavour loads, skip npm's start-up.
 */
async function runIn(
  dir: string,
  file: string,
  content: string,
  via: 'npx' | 'bin',
): Promise<Exit & { out: string }> {
  await writeFile(join(dir, file), content);
  const out = join(dir, `out-${file}`);
  const args = ['run', file, '--duration', '1s', '--out', out];
  const exit =
    via === 'npx'
      ? await sh('npx', ['--no', 'jobstorm', ...args], dir)
      : await sh(join(dir, 'node_modules', '.bin', 'jobstorm'), args, dir);
  return { ...exit, out };
}

async function expectRuns(dir: string, file: string, content: string, via: 'npx' | 'bin'): Promise<void> {
  const exit = await runIn(dir, file, content, via);
  expect(exit.code, `${file}: ${exit.stderr}`).toBe(0);
  expect(existsSync(join(exit.out, 'summary.json')), `${file}: summary.json`).toBe(true);
  const summary = await readSummary(exit.out);
  expect(summary.run.scenario).toBe('user-project');
  expect(summary.jobs.submitted).toBeGreaterThan(0);
}

beforeAll(async () => {
  work = await tempDir('user-project');
  const packs = join(work, 'packs');
  await mkdir(packs);
  // The dist/ that `npm test` built (typecheck) is packed as it is: running `prepare` here would
  // rewrite dist/ under the other test files that run the built CLI at the same time.
  await ok('npm', ['pack', '--ignore-scripts', '--pack-destination', packs], root);
  const [name] = readdirSync(packs).filter((f) => f.endsWith('.tgz'));
  expect(name).toBeDefined();
  tarball = join(packs, name ?? '');
  // Real time: `npm install`; each test awaits the project it runs in.
  commonjs = commonjsProject();
  esm = commonjs.then(esmProject);
  // A failed install fails the tests that await it, not the process as an unhandled rejection.
  commonjs.catch(() => undefined);
  esm.catch(() => undefined);
}, 420_000);

afterAll(async () => {
  // An install still under way (a test that failed before awaiting it) must not write into a removed folder.
  await Promise.allSettled([commonjs, esm]);
  await rm(work, { recursive: true, force: true });
});

/** The first code block of docs/library.md: the example a user saves as a file and runs. */
async function libraryExample(): Promise<string> {
  const page = await readFile(join(root, 'docs', 'library.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block, 'docs/library.md opens with a js code block').toBeDefined();
  return block ?? '';
}

describe('the library example of docs/library.md in a fresh project with the packed tarball', () => {
  it('runs as written: the smoke scenario against the embedded emulator, its verdict printed', async () => {
    const dir = await commonjs;
    await writeFile(join(dir, 'smoke.mjs'), await libraryExample());
    const exit = await sh('node', ['smoke.mjs'], dir);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout.trim()).toBe('verdict: passed');
  }, 300_000);
});

describe('a TypeScript scenario in a fresh project with the packed tarball', () => {
  it('runs in the npm init -y default (CommonJS): load.ts, load.mts, load.cts with import and with require', async () => {
    const dir = await commonjs;
    // All four at once: each is a process with its own emulator, a second of light load, and
    // nothing judges its latency.
    await Promise.all([
      expectRuns(dir, 'load.ts', IMPORTED, 'npx'),
      expectRuns(dir, 'load.mts', IMPORTED, 'bin'),
      expectRuns(dir, 'load.cts', IMPORTED, 'bin'),
      expectRuns(dir, 'required.cts', REQUIRED, 'bin'),
    ]);
  }, 300_000);

  it('runs in an ESM package ("type": "module"): load.ts and load.cts', async () => {
    const dir = await esm;
    await Promise.all([
      expectRuns(dir, 'load.ts', IMPORTED, 'npx'),
      expectRuns(dir, 'load.cts', REQUIRED, 'bin'),
    ]);
  }, 300_000);

  it('shows a TypeScript syntax error at file:line:column with its message, exit 2', async () => {
    const exit = await runIn(await commonjs, 'broken.ts', BROKEN, 'bin');
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('broken.ts:5:23: TypeScript: Expected identifier but found ","');
    expect(exit.stderr).not.toContain('Transform failed');
    expect(existsSync(exit.out)).toBe(false);
  }, 300_000);
});
