/**
 * The dev container CLI carried to an SSH host, as the helper is: `@devcontainers/cli` is one bundled file
 * (dist/spec-node/devContainersSpecCLI.js, no runtime dependencies) and three small ones, copied through the
 * host's own process streams into ~/.switchboard-server/devcontainers-cli/<version>/ (`version`: the first 16
 * hex digits of a sha256 over the files' names and bytes), checked there by the host's node against that
 * version before the folder is put in place, and run there by the host's node (20 or later, as the CLI needs).
 * The configurations given to it and the engine guard go to ~/.switchboard-server/containers/ (mode 0700).
 *
 *   const { cli, scratchDir } = await carryCli(sshHost, localCli, 'devbox');
 *   new SessionContainers(sshHost, engine, cli, scratchDir)    // `devcontainer up` runs on the host
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Host } from '../host/host';
import type { DevcontainerCli } from './container-lifecycle';
import { lastLine, runOnHost } from './run';

/** The CLI's files, relative to the folder of its devcontainer.js (the last two are read by it at run time). */
const FILES = ['devcontainer.js', 'dist/spec-node/devContainersSpecCLI.js', 'package.json', 'scripts/updateUID.Dockerfile'];
const VERSION = /^[0-9a-f]{16}$/;
/** The node the CLI needs (its package's `engines`). */
const MIN_NODE_MAJOR = 20;

export interface CliBundle {
  version: string;
  files: Array<{ rel: string; data: Buffer }>;
}

/** The same hash on both sides: each file's name, its length and its bytes, in the order of FILES. */
function versionOf(files: ReadonlyArray<{ rel: string; data: Buffer }>): string {
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.rel}\0${f.data.length}\0`).update(f.data);
  return hash.digest('hex').slice(0, 16);
}

const bundles = new Map<string, Promise<CliBundle>>();

/** The CLI this machine runs (`script`: its devcontainer.js), read once. */
export function cliBundle(script: string): Promise<CliBundle> {
  let b = bundles.get(script);
  if (!b) {
    const dir = path.dirname(script);
    b = (async () => {
      const files = await Promise.all(FILES.filter((rel) => existsSync(path.join(dir, rel))).map(async (rel) => ({ rel, data: await readFile(path.join(dir, rel)) })));
      if (!files.some((f) => f.rel === FILES[1])) throw new Error(`the dev container CLI's bundle is not found beside ${script}`);
      return { version: versionOf(files), files };
    })();
    b.catch(() => bundles.delete(script));
    bundles.set(script, b);
  }
  return b;
}

/** Node's check, run on the host over the copied folder: prints the version of the files it names (argv). */
const HASH_OF = `const fs=require('fs'),h=require('crypto').createHash('sha256');for(const r of process.argv.slice(1)){const d=fs.readFileSync(r);h.update(r+'\\0'+d.length+'\\0').update(d)}process.stdout.write(h.digest('hex').slice(0,16))`;

export interface CarriedCli {
  cli: DevcontainerCli;
  /** The host's private folder for the CLI's configurations and the engine guard (a real path). */
  scratchDir: string;
}

/**
 * Makes the CLI runnable on `host` (copied when its version is not there yet) and says how to run it there.
 * Throws one sentence naming the host when it cannot be (no node 20+, a copy that fails or does not match).
 */
export async function carryCli(host: Host, local: DevcontainerCli, label: string): Promise<CarriedCli> {
  const bundle = await cliBundle(local.script);
  if (!VERSION.test(bundle.version)) throw new Error('not a CLI version');
  const probe = await runOnHost(
    host,
    [
      '/bin/sh',
      '-c',
      [
        'set -e',
        'N=$(command -v node) || { echo "SB:no-node"; exit 0; }',
        'echo "SB:node-path $N"',
        'echo "SB:node-version $("$N" -e "process.stdout.write(process.versions.node)")"',
        'D="$HOME/.switchboard-server"',
        'mkdir -p "$D/containers" "$D/devcontainers-cli"',
        'chmod 700 "$D" "$D/containers"',
        'echo "SB:scratch $(cd "$D/containers" && pwd -P)"',
        'echo "SB:cli $(cd "$D/devcontainers-cli" && pwd -P)"',
        // A copy is used only while its bytes still match its version (checked at every first use, as the helper's).
        `V="$D/devcontainers-cli/$1"; shift`,
        `if [ -f "$V/.complete" ] && [ "$(cd "$V" && "$N" -e ${shellQuote(HASH_OF)} "$@" 2>/dev/null)" = "$(basename -- "$V")" ]; then touch "$V"; echo SB:have; else rm -rf -- "$V"; echo SB:need; fi`,
        // Copies broken off (a lost connection, Switchboard quit) and versions no Switchboard used for a week go.
        `find "$D/devcontainers-cli" -mindepth 1 -maxdepth 1 -type d \\( -name '.staging-*' -mmin +360 -o -name '${'[0-9a-f]'.repeat(16)}' ! -name "$(basename -- "$V")" -mtime +7 \\) -exec rm -rf {} + 2>/dev/null || true`,
      ].join('\n'),
      'sh',
      bundle.version,
      ...bundle.files.map((f) => f.rel),
    ],
    { env: {}, timeoutMs: 60_000, maxStdout: 64 * 1024 },
  );
  const said = (key: string): string => probe.stdout.split('\n').find((l) => l.startsWith(`SB:${key} `))?.slice(key.length + 4) ?? '';
  if (probe.code !== 0) throw new Error(`the dev container CLI could not be prepared on ${label}: ${lastLine(probe.stderr) || probe.error || `exit ${probe.code ?? probe.signal}`}`);
  if (probe.stdout.includes('SB:no-node')) throw new Error(`${label} has no node: containers on it need node ${MIN_NODE_MAJOR}+ there (to run the dev container CLI)`);
  const node = said('node-path');
  const nodeVersion = said('node-version');
  const scratchDir = said('scratch');
  const cliRoot = said('cli');
  if (![node, scratchDir, cliRoot].every((p) => p.startsWith('/') && !p.includes('\0'))) throw new Error(`${label} said something unusable while the dev container CLI was prepared`);
  const major = Number(/^(\d+)\./.exec(nodeVersion)?.[1]);
  if (!(major >= MIN_NODE_MAJOR)) throw new Error(`the node of ${label} is ${nodeVersion.slice(0, 40) || 'of an unknown version'}: containers on it need node ${MIN_NODE_MAJOR}+ there (to run the dev container CLI)`);
  const dir = path.posix.join(cliRoot, bundle.version);
  if (!probe.stdout.includes('SB:have')) await install(host, bundle, node, cliRoot, label);
  return { cli: { node: [node], script: path.posix.join(dir, 'devcontainer.js') }, scratchDir };
}

/** Copies the files into a staging folder, checks them there with the host's node, then puts the folder in place. */
async function install(host: Host, bundle: CliBundle, node: string, cliRoot: string, label: string): Promise<void> {
  const staging = path.posix.join(cliRoot, `.staging-${bundle.version}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
  try {
    for (const f of bundle.files) await upload(host, path.posix.join(staging, f.rel), f.data, label);
    const script = [
      'set -e',
      'V=$1; S=$2; shift 2',
      'cd "$S"',
      `[ "$("$N" -e ${shellQuote(HASH_OF)} "$@")" = "$V" ] || { echo "the copy of the dev container CLI on the host does not match what was sent ($(cat -- "$@" | wc -c) bytes arrived)" >&2; exit 3; }`,
      'touch .complete',
      // Another Switchboard may have put the same version in place meanwhile: its copy is as good.
      'D=$(dirname -- "$S"); cd "$D"; if [ -d "$D/$V" ]; then rm -rf -- "$S"; else mv -- "$S" "$D/$V"; fi',
    ].join('\n');
    const r = await runOnHost(host, ['/bin/sh', '-c', `N=${shellQuote(node)}\n${script}`, 'sh', bundle.version, staging, ...bundle.files.map((f) => f.rel)], { env: {}, timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`the dev container CLI could not be installed on ${label}: ${lastLine(r.stderr) || r.error || `exit ${r.code ?? r.signal}`}`);
  } finally {
    await runOnHost(host, ['/bin/rm', '-rf', '--', staging], { env: {}, timeoutMs: 60_000 });
  }
}

/** Streams `data` to the file `target` on the host (its folders made private). */
async function upload(host: Host, target: string, data: Buffer, label: string): Promise<void> {
  const proc = host.spawn(['/bin/sh', '-c', 'umask 077 && mkdir -p -- "$(dirname -- "$1")" && exec cat > "$1"', 'sh', target], { env: {} });
  let stderr = '';
  proc.stdout.resume();
  proc.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  try {
    proc.stdin.end(data);
    const exit = await proc.closed;
    if (exit.error || exit.code !== 0) throw new Error(`copying the dev container CLI to ${label} failed: ${lastLine(stderr) || exit.error || `exit ${exit.code ?? exit.signal}`}`);
  } finally {
    proc.dispose();
  }
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}
