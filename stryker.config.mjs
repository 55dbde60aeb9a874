// @ts-check
import { filesOf, readModules } from './scripts/mutation-modules.mjs';

/*
 * Mutation testing of the verdict's code (docs/mutation.md). The modules and their break
 * thresholds live in test/mutation/modules.json; `npm run test:mutation [module...]` runs them
 * through scripts/mutation.mjs, which prints the score per module. Results are kept in the
 * committed incremental file, so a run after a small change retests only what it touched.
 */

const modules = readModules();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level table or constant) reloads every test file per mutant: most of
  // the run's time for the least of its findings. The tables are proven by the tests that read them.
  ignoreStatic: true,
  // Error messages and labels: a mutated message changes no verdict, and they are most of the
  // string literals; the tests that read a message (config errors) are not what this run measures.
  mutator: { excludedMutations: ['StringLiteral'] },
  // Each file of every module, by name: see filesOf.
  mutate: filesOf(modules, Object.keys(modules)),
  incremental: true,
  incrementalFile: 'test/mutation/stryker-incremental.json',
  // Two cores shared with everything else on the machine.
  concurrency: 1,
  timeoutMS: 20_000,
  tempDirName: '.stryker-tmp',
  // Built output and benchmark output: nothing a unit test reads.
  ignorePatterns: ['/dist', '/.bench-out'],
  cleanTempDir: true,
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The per-module break thresholds are judged by scripts/mutation-score.mjs; Stryker's own is off.
  thresholds: { high: 90, low: 85, break: null },
};
