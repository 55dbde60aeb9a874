// `npm run test:mutation [module...]`: mutates the named modules of test/mutation/modules.json (all
// when none is named) with Stryker, incrementally, then prints the score of each module and fails
// below a module's break threshold. Extra Stryker options follow `--` (e.g. `-- --concurrency 2`).
import { spawnSync } from 'node:child_process';
import { URL, fileURLToPath } from 'node:url';
import process from 'node:process';
import { filesOf, readModules } from './mutation-modules.mjs';

const modules = readModules();
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const names = dash === -1 ? args : args.slice(0, dash);
const extra = dash === -1 ? [] : args.slice(dash + 1);
const unknown = names.filter((n) => !(n in modules));
if (unknown.length > 0) {
  process.stderr.write(
    `test:mutation: no module ${unknown.join(', ')}; modules: ${Object.keys(modules).join(', ')}\n`,
  );
  process.exit(2);
}
const chosen = names.length > 0 ? names : Object.keys(modules);
const mutate = filesOf(modules, chosen).join(',');
const cwd = fileURLToPath(new URL('..', import.meta.url));
// A module may name the test files that judge it (`tests`): when every chosen module does, the run
// takes only those (test/mutation/vitest.config.ts reads them from JOBSTORM_MUTATION_TESTS).
const narrowed = chosen.map((n) => modules[n]?.tests);
const env = narrowed.every((t) => t !== undefined)
  ? { ...process.env, JOBSTORM_MUTATION_TESTS: JSON.stringify([...new Set(narrowed.flat())]) }
  : process.env;
const run = (/** @type {string} */ cmd, /** @type {string[]} */ argv) =>
  spawnSync(cmd, argv, { cwd, stdio: 'inherit', env }).status ?? 1;

const stryker = run('npx', ['stryker', 'run', '--mutate', mutate, ...extra]);
if (stryker !== 0) process.exit(stryker);
process.exit(run(process.execPath, ['scripts/mutation-score.mjs', ...chosen]));
