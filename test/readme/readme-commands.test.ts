import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, stat, symlink } from 'node:fs/promises';
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
 * point at the page's own endpoint on an emulator this test starts. `npm ci` and `npm test` are
 * what CI itself runs (.ci/run), so they are the only commands not repeated here. Only ```sh blocks
 * run: a page marks a command that needs a real account, Kubernetes or a benchmark machine with
 * another language (`console`, `yaml`, `text`), so it is shown but not run. Each page's commands
 * run in order in a folder of its own (a `check` reads what the `run` above it recorded), the pages
 * side by side; a command that two pages share runs once, with the first page that gives it.
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
  /**
   * Its outcome depends on the CPU it gets: a capacity search starved at its first rate has no
   * verdict (exit 4).
   */
  needsCpu: boolean;
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
          needsCpu: /\bjobstorm capacity\b/.test(part),
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

/** The key the emulator of this test takes, set as $JOBSTORM_API_KEY for every command. */
const API_KEY = 'jobstorm-readme-key';

/** A page's commands, in the order the page gives them. */
interface Page {
  page: string;
  commands: Command[];
}

function byPage(commands: readonly Command[]): Page[] {
  const pages = new Map<string, Command[]>();
  for (const c of commands) pages.set(c.page, [...(pages.get(c.page) ?? []), c]);
  return [...pages].map(([page, list]) => ({ page, commands: list }));
}

/** What a command did, taken when it ended (before the next command of its page could write reports/). */
interface Outcome {
  code: number | null;
  output: string;
  /** For a command that exited 1: the summary it wrote or read. */
  summary?: Summary | undefined;
  /** For a `compare` that exited 1: its gates, from `<current>/compare/compare.json`. */
  gates?: CompareGate[] | undefined;
  /** For a server command: its first line on stdout (undefined when it exited before one). */
  firstLine?: string | undefined;
  /** For a `capacity` that exited 4: the rate its capacity.json says jobstorm itself was the bottleneck at. */
  generatorLimitedAt?: number | undefined;
}

let base = '';
let emulator: Promise<EmulatorHandle> | undefined;
const outcomes = new Map<Command, Promise<Outcome>>();

/** The page's folder under `base`, and its endpoint's id on the emulator. */
function slugOf(page: Page): string {
  return page.page.replace(/\.md$/, '').replace(/\W+/g, '-');
}

/**
 * The page's own folder, with what its commands name: scenarios/, and test/ for the own-worker
 * page's Python worker.
 */
async function folderOf(page: Page): Promise<string> {
  const cwd = join(base, slugOf(page));
  await mkdir(cwd);
  await symlink(join(root, 'scenarios'), join(cwd, 'scenarios'));
  await symlink(join(root, 'test'), join(cwd, 'test'));
  return cwd;
}

/**
 * The environment a command runs in. $JOBSTORM_TARGET, for a command that names it or whose block
 * exports it, is its page's own endpoint on the emulator, as each reader has theirs: pages that run
 * at the same time share no queue, workers or /health.
 */
async function environmentOf(c: Command, page: Page): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, JOBSTORM_API_KEY: API_KEY, GITHUB_STEP_SUMMARY: '' };
  delete env.JOBSTORM_TARGET;
  if (c.target && emulator !== undefined)
    env.JOBSTORM_TARGET = (await emulator).url.replace(/[^/]+$/, slugOf(page));
  return env;
}

/**
 * How many commands run at once. Most of them wait on their scenarios' durations at light rates;
 * five at a time keep the file about as long as its longest page (the capacity search) on two
 * cores without a burst of every page's process start at once.
 */
const SLOTS = 5;
let freeSlots = SLOTS;
const waitingForSlot: (() => void)[] = [];

/** Runs `work` in one of the SLOTS, in the order the commands asked for one. */
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (freeSlots > 0) freeSlots -= 1;
  else await new Promise<void>((resolve) => waitingForSlot.push(resolve));
  try {
    return await work();
  } finally {
    const next = waitingForSlot.shift();
    if (next) next();
    else freeSlots += 1;
  }
}

/**
 * Every page starts at once, in its own folder, its commands one after another (a `check` reads
 * what the `run` above it recorded): the pages share nothing, and the file takes about as long as
 * its longest page rather than the sum of all of them.
 */
function startPages(pages: readonly Page[]): void {
  const endpoints = pages.filter((p) => p.commands.some((c) => c.target)).map(slugOf);
  if (endpoints.length > 0) {
    // In a worker thread, as `jobstorm run` starts it: the commands' latency thresholds then do
    // not carry the pauses of the test runner's own event loop.
    emulator = startEmulatorInWorker({
      port: 0,
      apiKey: API_KEY,
      endpoints,
      workersMin: 4,
      workersMax: 8,
      coldStartMs: 0,
    });
    // Its failure reaches each command that needs it (and afterAll), not the process as unhandled.
    emulator.catch(() => undefined);
  }
  for (const page of pages) {
    const cwd = folderOf(page);
    let previous: Promise<unknown> = cwd;
    for (const c of page.commands) {
      const outcome = previous.then(async () => {
        const [dir, env] = await Promise.all([cwd, environmentOf(c, page)]);
        return inSlot(() => (c.server ? runServer(c, dir, env) : runCommand(c, dir, env)));
      });
      outcomes.set(c, outcome);
      // The next command runs after this one whatever became of it, as a reader's shell would.
      previous = outcome.catch(() => undefined);
    }
  }
}

afterAll(async () => {
  await (await emulator)?.close();
});

/** The command as bash runs it: `npx jobstorm` is the built bin, which is what npx resolves it to. */
function asWritten(command: string): string {
  return command.replace(/\bnpx jobstorm\b/g, `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)}`);
}

/**
 * bash running `script`. The commands run side by side on two cores, and only a capacity search's
 * outcome depends on the CPU it gets (the others wait on their scenarios' durations, and a latency
 * bound they miss on a busy host is allowed for below): the others run at a lower priority (nice),
 * so that they never starve the search's first step into "no verdict".
 */
function bash(c: Command, script: string): [string, string[]] {
  return c.needsCpu ? ['bash', ['-c', script]] : ['nice', ['-n', '10', 'bash', '-c', script]];
}

function shell(
  c: Command,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(...bash(c, asWritten(c.text)), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return once(child, 'exit').then(([code]) => ({ code: code as number | null, output }));
}

async function runCommand(c: Command, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  // Real time: the README's commands run the built CLI as real processes.
  const began = Date.now();
  const { code, output } = await shell(c, cwd, env);
  // A second early: a file system may keep modification times to the second.
  const summary = code === 1 ? await summaryWrittenBy(c.text, cwd, began - 1000) : undefined;
  const gates = code === 1 ? await gatesWrittenBy(c.text, cwd) : undefined;
  const generatorLimitedAt = code === 4 ? await generatorLimitWrittenBy(c.text, cwd) : undefined;
  return { code, output, summary, gates, generatorLimitedAt };
}

/** Where a documented `capacity` search found jobstorm itself the bottleneck (its capacity.json), or undefined. */
async function generatorLimitWrittenBy(command: string, cwd: string): Promise<number | undefined> {
  const out = /^npx jobstorm capacity .* --out (\S+)/.exec(command)?.[1];
  if (out === undefined) return undefined;
  const text = await readFile(join(cwd, out, 'capacity.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as { generatorLimitedAt?: number }).generatorLimitedAt;
}

interface CompareGate {
  expression: string;
  status: string;
  metricUnit?: string;
}

/** The gates of a documented `compare` (its report goes to `<current>/compare/`), or undefined. */
async function gatesWrittenBy(command: string, cwd: string): Promise<CompareGate[] | undefined> {
  const current = /^npx jobstorm compare \S+ (\S+)/.exec(command)?.[1];
  if (current === undefined) return undefined;
  const text = await readFile(join(cwd, current, 'compare', 'compare.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as { gates: CompareGate[] }).gates;
}

/** A long-running server command: started, its first line read, then stopped with Ctrl-C. */
async function runServer(c: Command, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const child = spawn(...bash(c, `exec ${asWritten(c.text)}`), {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  // Real time: the server process's first line (or its exit, should it end before one).
  const firstLine = await Promise.race([
    once(createInterface({ input: child.stdout }), 'line').then(([line]) => line as string),
    exited.then(() => undefined),
  ]);
  child.kill('SIGINT');
  const [code] = await exited;
  return { code, output: '', firstLine };
}

/**
 * The summary a command that judges a run wrote or read: `run` and `merge` into their `--out`
 * (a run without one into the newest folder of `reports/` written since `sinceMs`, the CLI's
 * default `reports/<run id>`), `report` from the folder it is given.
 */
async function summaryWrittenBy(command: string, cwd: string, sinceMs: number): Promise<Summary | undefined> {
  const [, verb, first] = /^npx jobstorm (run|merge|report) (\S+)/.exec(command) ?? [];
  if (verb === undefined) return undefined;
  const out = / --out (\S+)/.exec(command)?.[1];
  const dirs =
    verb === 'report' && first !== undefined
      ? [join(cwd, first)]
      : out !== undefined
        ? [join(cwd, out)]
        : await reportDirs(cwd, sinceMs);
  const text = await readFile(join(dirs[0] ?? cwd, 'summary.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Summary);
}

/** The folders of `reports/` whose summary.json was written since `sinceMs`, newest first. */
async function reportDirs(cwd: string, sinceMs: number): Promise<string[]> {
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

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'jobstorm-readme-'));
    startPages(byPage(commands));
  });

  it.each(commands.map((c) => [`${c.page}: ${c.text}`, c] as const))(
    '%s',
    async (_text, c) => {
      const outcome = outcomes.get(c);
      expect(outcome, 'started with its page').toBeDefined();
      const { code, output, summary, firstLine } = (await outcome) ?? { code: null, output: '' };
      if (c.server) {
        expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2\/\S+$/);
        expect(code).toBe(0);
        return;
      }
      const why = output.slice(-3000);
      // The real built CLI on real time: a documented latency bound (`p99(run) < 500ms`) holds on
      // a quiet host and may rightly fail on a loaded one (see latency-bounds.ts), and so do the
      // merge and report of such runs. What the command must do on any host: run to its end and
      // fail (exit 1) for nothing but such a bound.
      // A compare of two such runs may rightly fail a gate on a time (`delta(p50(executionTime))`:
      // the emulator's handler sleeps, and its timers fire late on a loaded host), never another.
      const { gates, generatorLimitedAt } = (await outcome) ?? {};
      // A capacity search on real time that the host starved of CPU rightly says it has no verdict
      // (exit 4), and only when its report names the rate at which jobstorm was the bottleneck.
      if (code === 4 && /^npx jobstorm capacity /.test(c.text)) {
        expect(generatorLimitedAt, `exit 4 without generatorLimitedAt\n${why}`).toBeTypeOf('number');
        return;
      }
      if (code === 1 && gates !== undefined) {
        const failed = gates.filter((g) => g.status !== 'passed');
        expect(failed.length, why).toBeGreaterThan(0);
        for (const g of failed) expect(g.metricUnit, `${g.expression}\n${why}`).toBe('ms');
        return;
      }
      if (code === 1) {
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
