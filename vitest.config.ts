import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    environment: 'node',
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // Real processes, ptys and a browser: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    pool: 'forks',
    // On CI a failed test runs once more (a deterministic failure still fails; vitest reports the retry).
    // End-to-end suites on test/support/app-suite.ts print the server's and agents' logs of a failed
    // attempt and remove the agents it added, so the retry starts clean.
    retry: process.env.CI ? 1 : 0,
  },
});
