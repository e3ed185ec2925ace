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
  },
});
