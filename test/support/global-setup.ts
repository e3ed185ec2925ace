import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The end-to-end tests run the built app (as users do): build once before any test file. */
export default function setup(): void {
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
