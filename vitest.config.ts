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
    // Each worker keeps the modules it loaded from one file to the next instead of importing src/
    // again for each of the 270 files: that import was 123 of the suite's 470 s on two cores. A
    // test that needs a module's state fresh (fired-rules.test.ts) imports it after
    // vi.resetModules().
    isolate: false,
  },
});
