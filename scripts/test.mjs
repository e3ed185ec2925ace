// `npm test`: type check, lint (with the layer rule), the Electron security scan, then every test
// (unit, integration with real agents/ptys/SQLite, end-to-end in Chromium). Arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeNative } from './native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);
const vitestArgs = process.argv.slice(2);

ensureNodeNative();

const steps = [
  ['type check', [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
  ['lint', [bin('eslint', 'bin/eslint.js'), '.']],
  ['security scan', [join(root, 'scripts/security-scan.mjs')]],
  ['tests', [bin('vitest', 'vitest.mjs'), 'run', ...vitestArgs]],
];
const failed = [];
for (const [name, args] of steps) {
  console.log(`\n── ${name} ──`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed.push(name);
}
console.log(failed.length ? `\nnpm test: FAILED (${failed.join(', ')})` : '\nnpm test: all steps passed');
process.exit(failed.length ? 1 : 0);
