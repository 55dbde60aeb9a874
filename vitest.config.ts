import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once, before every file, for the tests that run the built CLI.
    globalSetup: ['test/global-build.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Load tests share two cores with the emulator they drive; too many files at once makes
    // timing-sensitive assertions flaky without making the suite faster.
    maxWorkers: 2,
  },
});
