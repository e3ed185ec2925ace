// `npm run dist`: the installable packages for this OS (electron-builder.json) in dist/.
// The native modules are built for Electron's ABI the way `npm start` does it (scripts/native.mjs, cached),
// then packed as they are. Arguments go to electron-builder (`npm run dist -- --linux AppImage`).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectronNative } from './native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (script, args) => {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', script), ...args], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run('electron-vite/bin/electron-vite.js', ['build']);
ensureElectronNative();
run('electron-builder/cli.js', ['--publish', 'never', '-c.npmRebuild=false', ...process.argv.slice(2)]);
