import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { launchBrowserServer } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium every end-to-end suite of the run connects to (one browser, a context per page). */
    chromiumEndpoint: string;
  }
}

/**
 * The end-to-end tests run the built app (as users do): build once before any test file. The e2e project also
 * starts one Chromium for the whole run: each suite connects to it rather than launching its own.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  build();
  if (project.name !== 'e2e') return;
  const server = await launchBrowserServer();
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return async () => {
    await server.close();
  };
}

function build(): void {
  // Once per run, though each vitest project runs its global setup.
  if (process.env.SWITCHBOARD_SKIP_BUILD === '1' || process.env.SWITCHBOARD_BUILT_FOR_TESTS === '1') return;
  process.env.SWITCHBOARD_BUILT_FOR_TESTS = '1';
  const root = join(__dirname, '../..');
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}
