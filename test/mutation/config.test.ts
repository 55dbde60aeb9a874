import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import mutationVitest, { MUTATION_TESTS, NOT_MUTATION_TESTS } from './vitest.config.js';

/*
 * The mutation run is not in `npm test` (it takes far longer than the suite); this keeps its
 * configuration valid: it loads, names files that exist, and judges every module it mutates.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

interface MutationModule {
  mutate: string[];
  break: number;
  /** Why the break is below 85 %, when it is. */
  why?: string;
  /** The test files that judge this module alone, and why it is narrowed to them. */
  tests?: string[];
  testsWhy?: string;
}
interface ModulesApi {
  readModules(): Record<string, MutationModule>;
  moduleTakes(m: MutationModule, file: string): boolean;
  globToRegExp(glob: string): RegExp;
  filesOf(modules: Record<string, MutationModule>, names: string[]): string[];
}
interface ScoreApi {
  scores(
    report: { files: Record<string, { mutants: { status: string }[] }> },
    modules: Record<string, MutationModule>,
  ): Record<string, { mutants: number; detected: number; undetected: number }>;
}
interface StrykerConfig {
  testRunner?: string;
  plugins?: string[];
  vitest?: { configFile?: string; related?: boolean };
  mutate?: string[];
  incremental?: boolean;
  incrementalFile?: string;
  concurrency?: number;
  tempDirName?: string;
  jsonReporter?: { fileName?: string };
}

async function load<T>(path: string): Promise<T> {
  const href = pathToFileURL(join(root, path)).href;
  const mod: unknown = await import(href);
  return mod as T;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).replaceAll('\\', '/'));
}

/** A test glob of vitest.config.ts as a regular expression over a path from the root. */
function asPattern(glob: string): RegExp {
  return new RegExp(`^${glob.replaceAll('.', '\\.').replaceAll('**/', '(?:.*/)?').replaceAll('*', '[^/]*')}$`);
}

const SOURCES = [...filesUnder('src'), ...filesUnder('contracts')].filter((f) => f.endsWith('.ts'));
const TESTS = filesUnder('test');

describe('the mutation testing configuration', () => {
  it('stryker.config.mjs loads: the vitest runner, incremental with a committed file, one process', async () => {
    const { default: config } = await load<{ default: StrykerConfig }>('stryker.config.mjs');
    expect(config.testRunner).toBe('vitest');
    expect(config.plugins).toContain('@stryker-mutator/vitest-runner');
    expect(config.vitest?.configFile).toBe('test/mutation/vitest.config.ts');
    expect(existsSync(join(root, config.vitest?.configFile ?? ''))).toBe(true);
    expect(config.incremental).toBe(true);
    expect(config.incrementalFile).toBe('test/mutation/stryker-incremental.json');
    expect(existsSync(join(root, config.incrementalFile ?? ''))).toBe(true);
    expect(config.concurrency).toBeLessThanOrEqual(2);
    expect(config.jsonReporter?.fileName).toBe('reports/mutation/mutation.json');
    const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain(`${config.tempDirName ?? ''}/`);
  });

  it('mutates exactly the modules, each glob matching a source file, each with a break of at least 85 %', async () => {
    const { default: config } = await load<{ default: StrykerConfig }>('stryker.config.mjs');
    const api = await load<ModulesApi>('scripts/mutation-modules.mjs');
    const modules = api.readModules();
    // Files by name: Stryker reads its globs as one ordered list, where one module's `!` glob would
    // drop a file another module takes (`check` once dropped `check-transition`'s file).
    expect([...(config.mutate ?? [])].sort()).toEqual(
      SOURCES.filter((f) => Object.values(modules).some((m) => api.moduleTakes(m, f))).sort(),
    );
    expect(config.mutate).toEqual(api.filesOf(modules, Object.keys(modules)));
    expect(config.mutate).toContain('src/check/checks/transition-check.ts');
    expect(api.filesOf(modules, ['check-core'])).not.toContain('src/check/checks/transition-check.ts');
    for (const [name, m] of Object.entries(modules)) {
      if (m.break < 85) expect(m.why, `${name}: a break below 85 % says why`).toMatch(/\w{10}/);
      expect(m.break, name).toBeGreaterThanOrEqual(80);
      for (const glob of m.mutate) {
        const pattern = api.globToRegExp(glob.replace(/^!/, ''));
        expect(
          SOURCES.filter((f) => pattern.test(f)),
          `${name}: ${glob}`,
        ).not.toEqual([]);
      }
      expect(
        SOURCES.filter((f) => api.moduleTakes(m, f)),
        name,
      ).not.toEqual([]);
    }
    // A file in two modules would be counted twice.
    for (const f of SOURCES) {
      const owners = Object.keys(modules).filter((n) =>
        api.moduleTakes(modules[n] ?? { mutate: [], break: 0 }, f),
      );
      expect(owners.length, f).toBeLessThanOrEqual(1);
    }
  });

  it("a module's own tests exist, are ones the mutation run takes, and say why the module is narrowed", async () => {
    const api = await load<ModulesApi>('scripts/mutation-modules.mjs');
    const narrowed = Object.entries(api.readModules()).filter(([, m]) => m.tests !== undefined);
    expect(narrowed.map(([name]) => name)).toContain('fold');
    for (const [name, m] of narrowed) {
      expect(m.testsWhy?.length ?? 0, `${name}: testsWhy`).toBeGreaterThan(30);
      for (const file of m.tests ?? []) {
        expect(existsSync(join(root, file)), `${name}: ${file}`).toBe(true);
        expect(MUTATION_TESTS.some((g) => asPattern(g).test(file)), `${name}: ${file} in MUTATION_TESTS`).toBe(true);
        expect(NOT_MUTATION_TESTS).not.toContain(file);
      }
    }
  });

  it('the test folders it runs exist, and nothing in them needs the built CLI', () => {
    for (const glob of [...MUTATION_TESTS, ...NOT_MUTATION_TESTS]) {
      const pattern = new RegExp(
        `^${glob.replaceAll('.', '\\.').replaceAll('**/', '(?:.*/)?').replaceAll('*', '[^/]*')}$`,
      );
      expect(
        TESTS.filter((f) => pattern.test(f)),
        glob,
      ).not.toEqual([]);
    }
    expect(mutationVitest.test?.globalSetup).toBeUndefined();
  });

  it('runs no test that drives the CLI, a whole run or a proof run: slow, and its lazy imports make every table mutant survive', () => {
    const taken = MUTATION_TESTS.map(asPattern);
    const left = NOT_MUTATION_TESTS.map(asPattern);
    const run = TESTS.filter((f) => taken.some((p) => p.test(f)) && !left.some((p) => p.test(f)));
    expect(run.length).toBeGreaterThan(0);
    const drivers = run.filter((f) =>
      /\b(?:runCli|runJobstorm|runScenario|proofRun)\(/.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(drivers).toEqual([]);
  });

  it('`npm run test:mutation` runs it; `npm test` does not', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['test:mutation']).toBe('node scripts/mutation.mjs');
    expect(existsSync(join(root, 'scripts/mutation.mjs'))).toBe(true);
    expect(pkg.scripts.test).not.toMatch(/stryker|mutation/);
  });

  it('scores each module from the report: detected over killed, timed out, survived and uncovered', async () => {
    const score = await load<ScoreApi>('scripts/mutation-score.mjs');
    const modules = { a: { mutate: ['src/schedule/*.ts', '!src/schedule/index.ts'], break: 85 } };
    const report = {
      files: {
        'src/schedule/prng.ts': {
          mutants: ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'Ignored'].map(
            (status) => ({ status }),
          ),
        },
        'src/schedule/index.ts': { mutants: [{ status: 'Survived' }] },
        [join(root, 'src/schedule/shard.ts')]: { mutants: [{ status: 'Killed' }] },
      },
    };
    expect(score.scores(report, modules)).toEqual({ a: { mutants: 7, detected: 3, undetected: 2 } });
  });
});
