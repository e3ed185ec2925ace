// Keeps the native modules (better-sqlite3, node-pty) built for the runtime about to load them.
// Node and Electron have different ABIs; each build is cached so switching between `npm test` (Node)
// and `npm start` (Electron) in either order costs a file copy, not a rebuild.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const MODULES = ['better-sqlite3', 'node-pty'];
const stampFile = join(root, 'node_modules', '.switchboard-native.json');
const cacheRoot = join(root, 'node_modules', '.cache', 'switchboard-native');

const moduleDir = (name) => dirname(require.resolve(`${name}/package.json`));
const buildDir = (name) => join(moduleDir(name), 'build', 'Release');

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8')).key ?? null;
  } catch {
    return null;
  }
}

function writeStamp(key) {
  writeFileSync(stampFile, JSON.stringify({ key, at: new Date().toISOString() }) + '\n');
}

function saveToCache(key) {
  for (const name of MODULES) {
    if (!existsSync(buildDir(name))) return false;
  }
  for (const name of MODULES) {
    const dest = join(cacheRoot, key, name);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dirname(dest), { recursive: true });
    cpSync(buildDir(name), dest, { recursive: true });
  }
  return true;
}

function restoreFromCache(key) {
  if (!MODULES.every((name) => existsSync(join(cacheRoot, key, name)))) return false;
  for (const name of MODULES) {
    rmSync(buildDir(name), { recursive: true, force: true });
    mkdirSync(dirname(buildDir(name)), { recursive: true });
    cpSync(join(cacheRoot, key, name), buildDir(name), { recursive: true });
  }
  writeStamp(key);
  return true;
}

function nodeLoads() {
  const r = spawnSync(
    process.execPath,
    ['-e', "const D=require('better-sqlite3'); new D(':memory:').close(); require('node-pty');"],
    { cwd: root, encoding: 'utf8' },
  );
  return { ok: r.status === 0, error: (r.stderr || '').trim().split('\n').slice(0, 3).join(' ') };
}

function run(cmd, args, opts = {}) {
  console.log(`[native] ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  return r.status === 0;
}

export function electronVersion() {
  return JSON.parse(readFileSync(join(moduleDir('electron'), 'package.json'), 'utf8')).version;
}

/** Makes the native modules loadable by plain Node (this process's version). */
export function ensureNodeNative() {
  const key = `node-${process.versions.modules}-${process.platform}-${process.arch}`;
  const current = readStamp();
  if (current === key || current === null) {
    const check = nodeLoads();
    if (check.ok) {
      if (current === null || !existsSync(join(cacheRoot, key))) saveToCache(key);
      writeStamp(key);
      return;
    }
  } else if (current.startsWith('electron-')) {
    saveToCache(current);
  }
  if (restoreFromCache(key) && nodeLoads().ok) return;
  console.log(`[native] building better-sqlite3 and node-pty for Node ${process.version}…`);
  if (!run('npm', ['rebuild', ...MODULES])) throw new Error('npm rebuild of the native modules failed (see above)');
  const check = nodeLoads();
  if (!check.ok) throw new Error(`native modules still do not load under Node: ${check.error}`);
  saveToCache(key);
  writeStamp(key);
}

/** Makes the native modules loadable by Electron; throws with the reason when they cannot be built. */
export function ensureElectronNative() {
  const version = electronVersion();
  const key = `electron-${version}-${process.platform}-${process.arch}`;
  const current = readStamp();
  if (current === key) return;
  if (current) saveToCache(current);
  else if (nodeLoads().ok) saveToCache(`node-${process.versions.modules}-${process.platform}-${process.arch}`);
  if (restoreFromCache(key)) return;
  console.log(`[native] building better-sqlite3 and node-pty for Electron ${version} (once; cached afterwards)…`);
  const bin = join(moduleDir('@electron/rebuild'), 'lib', 'cli.js');
  const ok = run(process.execPath, [bin, '--force', '--version', version, '--only', MODULES.join(','), '--module-dir', root]);
  if (!ok) {
    // Put the Node build back so `npm test` keeps working.
    restoreFromCache(`node-${process.versions.modules}-${process.platform}-${process.arch}`);
    throw new Error(`could not build the native modules for Electron ${version} (electron-rebuild failed; see above)`);
  }
  saveToCache(key);
  writeStamp(key);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.argv[2] ?? 'node';
  if (which === 'electron') ensureElectronNative();
  else ensureNodeNative();
  console.log(`[native] ready for ${which}`);
}
