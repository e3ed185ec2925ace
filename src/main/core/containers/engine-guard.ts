/**
 * The engine's last gate. `@devcontainers/cli` merges settings from more than the configuration we give it:
 * an image's `devcontainer.metadata` label and each feature's metadata can ask for host mounts, `privileged`,
 * capabilities and security options too. So the CLI is given, as its `--docker-path`, a small guard of ours
 * that sees every engine command it runs and refuses a `run`, `create`, `exec` or `build` that would lower the
 * fence (anything not in the allowed set: the fence's mounts and network, and what the user allowed), before
 * the engine sees it. Other commands pass through unchanged.
 */
import path from 'node:path';
import type { ConfinedFiles } from '../host/host';

export interface GuardConfig {
  /** The real engine. */
  engine: string;
  /** `--mount` values allowed (normalised by `normalizeMount`). */
  mounts: string[];
  /** The only `--network` value allowed (null: the engine's default, i.e. no flag). */
  network: string | null;
  privileged: boolean;
  capAdd: string[];
  securityOpt: string[];
  /** Argument tokens the user allowed verbatim (from `runArgs` and `build.options`). */
  extra: string[];
}

/** A mount spec in one spelling: keys sorted, aliases (`src`, `dst`, `destination`) made `source` and `target`. */
export function normalizeMount(spec: unknown): string {
  const pairs = typeof spec === 'string' ? spec.split(',').map((p) => p.split('=')) : Object.entries(spec as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
  const alias: Record<string, string> = { src: 'source', dst: 'target', destination: 'target' };
  return pairs
    .map(([k = '', ...v]) => `${alias[k.trim()] ?? k.trim()}=${v.join('=').trim()}`)
    .sort()
    .join(',');
}

/** Writes the guard (a shell wrapper and its script) into the scratch folder; returns the wrapper's path. */
export async function writeEngineGuard(files: ConfinedFiles, scratchDir: string, name: string, node: readonly string[], config: GuardConfig): Promise<string> {
  const script = path.posix.join(scratchDir, `${name}.engine-guard.cjs`);
  const wrapper = path.posix.join(scratchDir, `${name}.engine-guard`);
  await files.writeFile(script, `const CONFIG = ${JSON.stringify(config)};\n${GUARD_SOURCE}`);
  // Only the commands that make or enter containers are checked by node, and only those: a node start costs
  // more than the engine's own call (the CLI runs `-v`, `buildx version`, inspects, and two execs per `up`). An
  // exec with none but the plainest flags passes in the shell (FAST_EXEC: a subset of what the check lets
  // through; anything else still goes to node). Then the engine itself replaces the shell, so the CLI's
  // signals and pipes reach it as if it had started it.
  // The arguments go on stdin, NUL-separated: node reads some options (--env-file) even after the script's name.
  const check = `printf '%s\\0' "$@" | ${[...node, script].map(shellQuote).join(' ')} || exit 1`;
  const text = [
    '#!/bin/sh',
    FAST_EXEC,
    'case "$1" in',
    '  -v|--version) [ $# -eq 1 ] || { ' + check + '; } ;;',
    `  run|create|build|-*) ${check} ;;`,
    `  exec) plain_exec "$@" || { ${check}; } ;;`,
    `  buildx|image) if [ "$2" = build ]; then ${check}; fi ;;`,
    `  container) case "$2" in run|create|exec) ${check} ;; esac ;;`,
    'esac',
    `exec ${shellQuote(config.engine)} "$@"`,
    '',
  ].join('\n');
  await files.placeFile(path.posix.relative(files.roots[0]!, wrapper), Buffer.from(text), 0o700);
  return wrapper;
}

/**
 * `plain_exec exec [flags] container …`: true when every flag before the container is one the check always lets
 * through (-i, -t, -d and their long names; -u, -e, -w with a value), so node need not start for it.
 */
const FAST_EXEC = `plain_exec() {
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --) return 0 ;;
      -i|-t|-d|--interactive|--tty|--detach) shift ;;
      -u|-e|-w|--user|--env|--workdir) [ $# -ge 2 ] || return 1; shift 2 ;;
      --user=*|--env=*|--workdir=*) shift ;;
      -*) return 1 ;;
      *) return 0 ;;
    esac
  done
  return 0
}`;

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** Plain JavaScript run by node beside the CLI (CONFIG is prepended): exits 1, saying why, to refuse. */
const GUARD_SOURCE = String.raw`
const input = require('node:fs').readFileSync(0, 'utf8');
const args = input === '' ? [] : input.slice(0, -1).split('\0');
const VALUE = new Set(['-a', '--attach', '--mount', '-l', '--label', '--security-opt', '--entrypoint', '-e', '--env', '-u', '--user', '--name', '--network', '--net', '--userns', '-m', '--memory', '--memory-swap', '--cpus', '--pids-limit', '-w', '--workdir', '--cap-add', '-f', '--file', '-t', '--tag', '--target', '--build-arg', '--platform', '--cache-from', '--cache-to', '--build-context', '--format', '--iidfile', '--progress']);
const SAFE = new Set(['-t', '-a', '--attach', '-l', '--label', '--entrypoint', '-e', '--env', '-u', '--user', '--name', '-w', '--workdir', '-d', '--detach', '--rm', '--init', '-i', '--interactive', '--tty', '--sig-proxy', '-f', '--file', '--tag', '--target', '--build-arg', '--platform', '--cache-from', '--cache-to', '--build-context', '--format', '--iidfile', '--progress', '-q', '--quiet', '--no-cache', '--pull', '--load', '--memory', '-m', '--memory-swap', '--cpus', '--pids-limit']);
const norm = (spec) => spec.split(',').map((p) => p.split('=')).map(([k = '', ...v]) => ({ src: 'source', dst: 'target', destination: 'target' }[k.trim()] || k.trim()) + '=' + v.join('=').trim()).sort().join(',');
function refuse(what) {
  process.stderr.write('Switchboard refused to run the engine: ' + what + ' would lower the session\'s fence (not allowed for this repository)\n');
  process.exit(1);
}
function check(command, rest, build) {
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i];
    if (!token.startsWith('-')) { if (build) continue; return; }
    if (token === '--') return;
    const eq = token.indexOf('=');
    const flag = token.startsWith('--') && eq > 0 ? token.slice(0, eq) : token;
    let value = token.startsWith('--') && eq > 0 ? token.slice(eq + 1) : null;
    if (value === null && VALUE.has(flag) && !(command !== 'build' && flag === '-t')) value = rest[++i] ?? '';
    if (CONFIG.extra.includes(token) && (value === null || eq > 0 || CONFIG.extra.includes(value))) continue;
    if (flag === '-t' && command !== 'build') continue;
    if (flag === '--mount') { if (CONFIG.mounts.includes(norm(value))) continue; refuse('the mount "' + value + '"'); }
    if (flag === '--network' || flag === '--net') { if (CONFIG.network !== null && value === CONFIG.network) continue; refuse('the network "' + value + '"'); }
    if (flag === '--privileged') { if (CONFIG.privileged) continue; refuse('--privileged'); }
    if (flag === '--cap-add') { if (CONFIG.capAdd.includes(value)) continue; refuse('the capability "' + value + '"'); }
    if (flag === '--userns') { if (value === 'keep-id' || value.startsWith('keep-id:')) continue; refuse('the user namespace "' + value + '"'); }
    if (flag === '--security-opt') { if (value === 'label=disable' || CONFIG.securityOpt.includes(value)) continue; refuse('the security option "' + value + '"'); }
    if (SAFE.has(flag)) continue;
    refuse('the engine option "' + token + '"');
  }
}
// An option before the command (a global one: --log-level, --root, --url, -H…) could hide which command this is
// and what it does: none is let through (the CLI passes none; '-v' / '--version' alone asks the version).
if (args.length > 0 && args[0].startsWith('-') && !(args.length === 1 && (args[0] === '-v' || args[0] === '--version'))) refuse('the engine option "' + args[0] + '" before the command');
const at = 0;
const sub = args[at];
if (sub === 'run' || sub === 'create' || sub === 'exec' || sub === 'container' && ['run', 'create', 'exec'].includes(args[at + 1])) {
  const s = sub === 'container' ? at + 1 : at;
  check(args[s], args.slice(s + 1), false);
  if (CONFIG.network === 'none' && args[s] !== 'exec' && !args.slice(s + 1).some((a, i, all) => a === '--network=none' || (a === '--network' && all[i + 1] === 'none'))) refuse('a container without the fence\'s network');
} else if (sub === 'build' || (sub === 'buildx' && args[at + 1] === 'build') || (sub === 'image' && args[at + 1] === 'build')) {
  const s = sub === 'build' ? at : at + 1;
  check('build', args.slice(s + 1), true);
}
`;
