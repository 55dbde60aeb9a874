import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorInWorker, type EmulatorHandle } from '../../src/emulator/index.js';
import type { Summary } from '../../src/report/summary.js';
import { failuresBesideLatency } from '../helpers/latency-bounds.js';

/*
 * Every command in the README and in the pages of docs/ runs here, as written, against the
 * emulator on loopback: `npx jobstorm` is the built bin, `$JOBSTORM_TARGET` and `$JOBSTORM_API_KEY`
 * point at an emulator this test starts. `npm ci` and `npm test` are what CI itself runs (.ci/run),
 * so they are the only commands not repeated here. Only ```sh blocks run: a page marks a command
 * that needs a real account, Kubernetes or a benchmark machine with another language (`console`,
 * `yaml`, `text`), so it is shown but not run. The pages run in the order below, each page's
 * commands in order and in one folder (a `check` reads what the `run` above it recorded); a command
 * that two pages share runs once.
 */
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

interface Command {
  /** The page it is written in: README.md or docs/<page>.md. */
  page: string;
  text: string;
  /** Long-running server commands: started, checked for their first line, then stopped. */
  server: boolean;
  /** $JOBSTORM_TARGET is set for it: its block exports it, or the command names it (jobstorm honours it). */
  target: boolean;
}

function pageCommands(page: string, text: string): Command[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const commands: Command[] = [];
  for (const block of blocks) {
    const joined = block.replace(/\\\n\s*/g, ' ');
    let exported = false;
    for (const raw of joined.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line.startsWith('export JOBSTORM_TARGET=')) exported = true;
      if (!line || line.startsWith('export ')) continue;
      for (const part of line.split('&&').map((p) => p.trim())) {
        if (part === 'npm ci' || part === 'npm test') continue;
        commands.push({
          page,
          text: part,
          server: /\bjobstorm emulate\b/.test(part),
          target: exported || part.includes('JOBSTORM_TARGET'),
        });
      }
    }
  }
  return commands;
}

/** The README's commands, then each docs/*.md page's, each distinct command once. */
async function documentedCommands(): Promise<Command[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  const pages = ['README.md', ...docs.map((f) => `docs/${f}`)];
  const seen = new Set<string>();
  const commands: Command[] = [];
  for (const page of pages) {
    for (const c of pageCommands(page, await readFile(join(root, page), 'utf8'))) {
      const key = `${c.text}\n${String(c.target)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      commands.push(c);
    }
  }
  return commands;
}

let emulator: EmulatorHandle;
let cwd: string;

beforeAll(async () => {
  // In a worker thread, as `jobstorm run` starts it: the commands' latency thresholds then do not
  // carry the pauses of the test runner's own event loop.
  emulator = await startEmulatorInWorker({ port: 0, workersMin: 4, workersMax: 8, coldStartMs: 0 });
  cwd = await mkdtemp(join(tmpdir(), 'jobstorm-readme-'));
  await symlink(join(root, 'scenarios'), join(cwd, 'scenarios'));
  // The own-worker page's example runs the test suite's standard-library Python worker.
  await symlink(join(root, 'test'), join(cwd, 'test'));
});

afterAll(async () => {
  await emulator.close();
});

function shell(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    'bash',
    [
      '-c',
      command.replace(/\bnpx jobstorm\b/g, `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)}`),
    ],
    { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
}

/**
 * The summary a command that judges a run wrote or read: `run` and `merge` into their `--out`
 * (a run without one into the newest folder of `reports/` written since `sinceMs`, the CLI's
 * default `reports/<run id>`), `report` from the folder it is given.
 */
async function summaryWrittenBy(command: string, sinceMs: number): Promise<Summary | undefined> {
  const [, verb, first] = /^npx jobstorm (run|merge|report) (\S+)/.exec(command) ?? [];
  if (verb === undefined) return undefined;
  const out = / --out (\S+)/.exec(command)?.[1];
  const dirs =
    verb === 'report' && first !== undefined
      ? [join(cwd, first)]
      : out !== undefined
        ? [join(cwd, out)]
        : await reportDirs(sinceMs);
  const text = await readFile(join(dirs[0] ?? cwd, 'summary.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Summary);
}

/** The folders of `reports/` whose summary.json was written since `sinceMs`, newest first. */
async function reportDirs(sinceMs: number): Promise<string[]> {
  const names = await readdir(join(cwd, 'reports')).catch(() => [] as string[]);
  const written = await Promise.all(
    names.map(async (n) => {
      const at = await stat(join(cwd, 'reports', n, 'summary.json')).then(
        (st) => st.mtimeMs,
        () => -1,
      );
      return { dir: join(cwd, 'reports', n), at };
    }),
  );
  return written
    .filter((w) => w.at >= sinceMs)
    .sort((a, b) => b.at - a.at)
    .map((w) => w.dir);
}

describe('README and docs/ commands', async () => {
  const commands = await documentedCommands();

  it('has commands to run', () => {
    expect(commands.length).toBeGreaterThan(5);
    for (const c of commands) expect(c.text, c.text).toMatch(/^npx jobstorm /);
  });

  it('runs commands of the README and of the docs pages', () => {
    expect(commands.filter((c) => c.page === 'README.md').length).toBeGreaterThan(0);
    expect(commands.filter((c) => c.page !== 'README.md').length).toBeGreaterThan(5);
  });

  it.each(commands.map((c) => [`${c.page}: ${c.text}`, c] as const))(
    '%s',
    async (_text, c) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        JOBSTORM_API_KEY: emulator.apiKey,
        GITHUB_STEP_SUMMARY: '',
      };
      if (c.target) env.JOBSTORM_TARGET = emulator.url;
      else delete env.JOBSTORM_TARGET;
      if (c.server) {
        const child = spawn(
          'bash',
          [
            '-c',
            `exec ${c.text.replace(/\bnpx jobstorm\b/g, `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)}`)}`,
          ],
          { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
        expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/\S+$/);
        child.kill('SIGINT');
        const [code] = (await once(child, 'exit')) as [number | null];
        expect(code).toBe(0);
        return;
      }
      // Real time: the README's commands run the built CLI as real processes.
      const began = Date.now();
      const { code, output } = await shell(c.text, env);
      const why = output.slice(-3000);
      // The real built CLI on real time: a documented latency bound (`p99(run) < 500ms`) holds on
      // a quiet host and may rightly fail on a loaded one (see latency-bounds.ts), and so do the
      // merge and report of such runs. What the command must do on any host: run to its end and
      // fail (exit 1) for nothing but such a bound.
      if (code === 1) {
        // A second early: a file system may keep modification times to the second.
        const summary = await summaryWrittenBy(c.text, began - 1000);
        expect(summary, why).toBeDefined();
        expect(failuresBesideLatency(summary ?? { violations: [], thresholds: [] }), why).toEqual([]);
        expect(
          summary?.thresholds.some((t) => !t.ok),
          why,
        ).toBe(true);
        expect(summary?.run.end, why).toBe('completed');
      } else expect(code, why).toBe(0);
    },
    120_000,
  );
});
