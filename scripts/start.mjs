// `npm start`: build, then launch the desktop app with Electron; where Electron cannot run here
// (no binary and none can be downloaded, no display, native modules not buildable for it), serve the
// same app in browser mode and say why.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectronNative, ensureNodeNative, electronVersion } from './native.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const args = process.argv.slice(2);
const forceBrowser = args.includes('--browser') || process.env.SWITCHBOARD_BROWSER === '1';

function build() {
  console.log('Building Switchboard…');
  const vite = join(dirname(require.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
  const r = spawnSync(process.execPath, [vite, 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error('The build failed (see above).');
    process.exit(1);
  }
}

/** Returns the Electron executable, downloading it if needed, or the reason there is none. */
function electronBinary() {
  const dir = dirname(require.resolve('electron/package.json'));
  const pathTxt = join(dir, 'path.txt');
  const existing = () => (existsSync(pathTxt) ? join(dir, 'dist', readFileSync(pathTxt, 'utf8').trim()) : null);
  let bin = existing();
  if (bin && existsSync(bin)) return { bin };
  console.log(`Downloading the Electron ${electronVersion()} binary (once)…`);
  const r = spawnSync(process.execPath, [join(dir, 'install.js')], { cwd: root, encoding: 'utf8', timeout: 10 * 60_000 });
  bin = existing();
  if (r.status === 0 && bin && existsSync(bin)) return { bin };
  const detail = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').find((l) => /error|fail|ENOTFOUND|ECONN|timed out/i.test(l)) ?? `exit code ${r.status}`;
  return { reason: `the Electron ${electronVersion()} binary is not installed and could not be downloaded (${detail.trim()})` };
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function startBrowserMode(reason) {
  ensureNodeNative();
  if (reason) console.log(`\nElectron cannot run here: ${reason}.\nStarting Switchboard in browser mode instead: the same app, served to your browser from this machine only.\n`);
  const child = spawn(process.execPath, [join(root, 'out/main/server.js'), '--port', process.env.SWITCHBOARD_PORT ?? '47821'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const msg = JSON.parse(line);
        if (msg.event === 'listening') {
          console.log(`Switchboard is running in browser mode.\n\n  Open: ${msg.url}\n\n(The address carries a one-time token; it is valid until you stop this process with Ctrl+C.)\nData: ${msg.dataDir}`);
          continue;
        }
      } catch {
        /* a plain log line */
      }
      console.log(line);
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}

function startElectron(bin) {
  try {
    ensureElectronNative();
  } catch (e) {
    return startBrowserMode(e.message);
  }
  const child = spawn(bin, [root, ...args.filter((a) => a !== '--browser')], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (signal) console.error(`Electron exited with ${signal}`);
    process.exit(code ?? 0);
  });
}

build();
if (forceBrowser) {
  startBrowserMode(null);
} else {
  const found = electronBinary();
  if (!found.bin) startBrowserMode(found.reason);
  else if (!hasDisplay()) startBrowserMode('there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)');
  else startElectron(found.bin);
}
