import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSummary, root, tempDir } from './helpers.js';

/*
 * Issue 13 item 5: a TypeScript scenario in a user's own project, as a new user writes it:
 * `npm init -y && npm i jobstorm`, `import { defineScenario } from 'jobstorm'` in load.ts, then
 * `npx jobstorm run load.ts`. The package is the packed tarball (`npm pack`, which builds through
 * `prepare`), installed into two fresh projects: the `npm init -y` default (CommonJS) and one with
 * `"type": "module"`. Each layout gets its own install; dependencies come from the npm cache.
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
let commonjs: Promise<string> | undefined;

async function project(name: string, type: 'commonjs' | 'module' | undefined): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  await ok('npm', ['init', '-y'], dir);
  if (type === 'module') await ok('npm', ['pkg', 'set', 'type=module'], dir);
  await ok('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], dir);
  return dir;
}

async function runIn(dir: string, file: string, content: string): Promise<Exit & { out: string }> {
  await writeFile(join(dir, file), content);
  const out = join(dir, `out-${file}`);
  const exit = await sh('npx', ['--no', 'jobstorm', 'run', file, '--duration', '2s', '--out', out], dir);
  return { ...exit, out };
}

async function expectRuns(dir: string, file: string, content: string): Promise<void> {
  const exit = await runIn(dir, file, content);
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
}, 420_000);

afterAll(async () => {
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
    commonjs ??= project('commonjs', undefined);
    const dir = await commonjs;
    await writeFile(join(dir, 'smoke.mjs'), await libraryExample());
    const exit = await sh('node', ['smoke.mjs'], dir);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout.trim()).toBe('verdict: passed');
  }, 300_000);
});

describe('a TypeScript scenario in a fresh project with the packed tarball', () => {
  it('runs in the npm init -y default (CommonJS): load.ts, load.mts, load.cts with import and with require', async () => {
    commonjs ??= project('commonjs', undefined);
    const dir = await commonjs;
    // Two at a time: each run is a process with its own emulator, on a shared machine.
    await Promise.all([expectRuns(dir, 'load.ts', IMPORTED), expectRuns(dir, 'load.mts', IMPORTED)]);
    await Promise.all([expectRuns(dir, 'load.cts', IMPORTED), expectRuns(dir, 'required.cts', REQUIRED)]);
  }, 300_000);

  it('runs in an ESM package ("type": "module"): load.ts and load.cts', async () => {
    const dir = await project('esm', 'module');
    await Promise.all([expectRuns(dir, 'load.ts', IMPORTED), expectRuns(dir, 'load.cts', REQUIRED)]);
  }, 300_000);

  it('shows a TypeScript syntax error at file:line:column with its message, exit 2', async () => {
    commonjs ??= project('commonjs', undefined);
    const exit = await runIn(await commonjs, 'broken.ts', BROKEN);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain('broken.ts:5:23: TypeScript: Expected identifier but found ","');
    expect(exit.stderr).not.toContain('Transform failed');
    expect(existsSync(exit.out)).toBe(false);
  }, 300_000);
});
