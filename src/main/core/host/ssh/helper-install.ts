/**
 * The shell scripts that check a host and install the helper there, in ~/.switchboard-server/<version>/
 * (`version`: the first 16 hex digits of the sha256 of the helper's bytes, see helper-bundle.ts). Run with
 * `sh -c` over ssh; they print `SB:` lines for SshHost to read.
 *
 * The folder also holds what concerns keep on the host (checkpoints/, agents/…): only folders named as a
 * version are ever removed.
 */
import { shq } from './ssh-command';

/** A version's folder name: exactly 16 lowercase hex digits. */
export const VERSION_NAME = /^[0-9a-f]{16}$/;
/** The same, as a find(1) -name pattern. */
const VERSION_GLOB = '[0-9a-f]'.repeat(16);

function checkVersion(version: string): string {
  if (!VERSION_NAME.test(version)) throw new Error(`"${version}" is not a helper version`);
  return version;
}

/** Node's one-liner that prints the version (hash prefix) of the file given as its argument, or nothing. */
const HASH_OF = `const f=process.argv[1];try{process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync(f)).digest('hex').slice(0,16))}catch{}`;

/**
 * Checks node and git, and whether the helper of `version` is there with the right bytes: `SB:have`, or
 * `SB:need` (missing, or its copy differs: a partial copy, a disk error, someone's edit).
 */
export function probeScript(node: string, version: string): string {
  const v = checkVersion(version);
  return [
    `N=${shq(node)}; D="$HOME/.switchboard-server"`,
    'if ! command -v "$N" >/dev/null 2>&1; then echo "SB:no-node"; exit 0; fi',
    'echo "SB:node $("$N" -e "process.stdout.write(process.version)" 2>&1)"',
    'command -v git >/dev/null 2>&1 || echo "SB:no-git"',
    // A version in use is touched on every connect; another Switchboard (another version) may still use its own.
    `if [ -f "$D/${v}/server.cjs" ] && [ "$("$N" -e ${shq(HASH_OF)} "$D/${v}/server.cjs" 2>/dev/null)" = ${v} ]; then touch "$D/${v}"; echo "SB:have"; else echo "SB:need"; fi`,
  ].join('\n');
}

/**
 * Writes the helper (its bytes on stdin) in place, checked against its version before it replaces anything,
 * and removes other versions no Switchboard connected with for a week (another machine, or an older
 * Switchboard, may still use one). Nothing else in the folder is touched.
 */
export function installScript(node: string, version: string): string {
  const v = checkVersion(version);
  return [
    'set -e',
    `N=${shq(node)}; D="$HOME/.switchboard-server"`,
    `mkdir -p "$D/${v}"`,
    'chmod 700 "$D"',
    `T="$D/${v}/server.cjs.$$"`,
    'cat > "$T"',
    `if [ "$("$N" -e ${shq(HASH_OF)} "$T" 2>/dev/null)" != ${v} ]; then rm -f "$T"; echo "the copy of the helper on the host does not match what was sent" >&2; exit 3; fi`,
    `mv -f "$T" "$D/${v}/server.cjs"`,
    `find "$D" -mindepth 1 -maxdepth 1 -type d -name '${VERSION_GLOB}' ! -name ${v} -mtime +7 -exec rm -rf {} + 2>/dev/null || true`,
  ].join('\n');
}
