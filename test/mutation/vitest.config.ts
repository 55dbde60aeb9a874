import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run uses: the fast unit folders of the verdict's code. No global setup
 * (nothing here runs the built CLI, so a mutant never waits for a build of dist/), and none of the
 * files that drive a live emulator, a CLI run or a load: each mutant reruns the tests that cover
 * it, so one slow file would multiply into hours.
 */
export const MUTATION_TESTS = [
  'test/check/**/*.test.ts',
  'test/report/**/*.test.ts',
  'test/compare/**/*.test.ts',
  'test/schedule/**/*.test.ts',
  'test/metrics/**/*.test.ts',
  'test/contracts/**/*.test.ts',
  'test/emulator/core.test.ts',
  'test/emulator/lifecycle.test.ts',
  'test/emulator/fault-list.test.ts',
  'test/emulator/rate-limiter.test.ts',
  'test/emulator/expiry-queue.test.ts',
  'test/core/recent-map.test.ts',
  'test/core/route-watch.test.ts',
];

/**
 * Live runs, CLI runs, whole-document OpenAPI validation and the readme: slow or not about a rule. A CLI
 * run also loads modules inside a test (its commands are imported lazily), so their module-level
 * tables count as covered by that test and their mutants, never reloaded, all survive. The
 * HTML and merged-report tests import every reporter and take seconds a file, paid again for each
 * mutant they cover; the golden reports (under a second) stay, since they pin every value shown.
 */
export const NOT_MUTATION_TESTS = [
  'test/check/faults.test.ts',
  'test/check/load-clean.test.ts',
  'test/check/load-clean-openai.test.ts',
  'test/check/management-repro.test.ts',
  'test/check/shared-endpoint.test.ts',
  'test/check/cancel-ack-live.test.ts',
  'test/check/readme-catalog.test.ts',
  'test/check/scaling.test.ts',
  'test/check/scaling-foreign.test.ts',
  'test/check/scaling-worker.test.ts',
  'test/metrics/scaling-emulator.test.ts',
  'test/metrics/token-cold-start.test.ts',
  'test/report/cli.test.ts',
  'test/report/html.test.ts',
  'test/report/html-legend.test.ts',
  'test/report/merge.test.ts',
  'test/compare/html.test.ts',
  'test/compare/cli.test.ts',
  'test/compare/emulator.test.ts',
  'test/compare/nightly.test.ts',
  'test/contracts/openapi.test.ts',
];

/** The test files a module names for itself (modules.json `tests`, set by scripts/mutation.mjs). */
function narrowed(): string[] | undefined {
  const only = process.env.JOBSTORM_MUTATION_TESTS;
  return only === undefined ? undefined : (JSON.parse(only) as string[]);
}

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: narrowed() ?? MUTATION_TESTS,
    exclude: NOT_MUTATION_TESTS,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
