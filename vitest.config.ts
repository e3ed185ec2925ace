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
    // On CI a failed test runs once more (a deterministic failure still fails). Two rare end-to-end flakes
    // under the full suite's load (a sign-in session that does not show, test/e2e/agents.test.ts; a
    // malformed-output reply not painted in 25 s, test/e2e/session.test.ts) are not understood yet: vitest
    // reports the retry, and the agents suite prints the server's and agents' logs of the failed attempt.
    retry: process.env.CI ? 1 : 0,
  },
});
