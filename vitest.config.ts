import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@shared': fileURLToPath(new URL('./src/shared', import.meta.url)) } },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    environment: 'node',
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // Real processes, ptys and a browser: keep parallelism modest on a 2-core machine.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] } },
      // End-to-end suites drive a real browser against the built app and real agent processes, each suite on
      // test/support/app-suite.ts. No project retries: a test that fails once is a bug to find.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
