/**
 * Connecting to an SSH host, step by step, with the user's own OpenSSH, and saying plainly what failed:
 * resolving (`ssh -G`: the config's reading of the alias), authenticating (one batch-mode connection: never
 * a prompt, host keys checked strictly against the user's known_hosts), and what the host lacks (node, git).
 * An unknown host key is reported with its fingerprint (as ssh saw it, through any ProxyJump) and recorded
 * only when the user accepted that very fingerprint; a changed key is refused with OpenSSH's own warning.
 */
import { parseSshAddress, type ConnectFailure } from '../../../shared/contract/hosts';
import type { Host } from '../host/host';
import { parseEffective, type EffectiveSsh } from './ssh-config';
import { runTool, type RunResult } from './ssh-run';

/** Longest a step may take: an unreachable host is said so within this, never a hang. */
export const CONNECT_TIMEOUT_MS = 15_000;
const SSH_CONNECT_TIMEOUT_S = 10;

export interface SshContext {
  /** This machine (ssh runs here). */
  local: Host;
  env: Record<string, string>;
  /** `-F` file (tests use their own); null: the user's ~/.ssh/config. */
  configFile: string | null;
}

/** ssh's arguments naming the host: an alias, or `user@host` with `-p port`. */
export function targetArgs(target: string): string[] {
  const a = parseSshAddress(target);
  if (!a) return ['--', target];
  const hostname = a.hostname.startsWith('[') ? a.hostname.slice(1, -1) : a.hostname;
  return [...(a.port !== null ? ['-p', String(a.port)] : []), '--', `${a.user}@${hostname}`];
}

const configArgs = (ctx: SshContext): string[] => (ctx.configFile ? ['-F', ctx.configFile] : []);

/** `ssh -G`: what ssh would use; a failure (a broken config) is a sentence. */
export async function resolveTarget(ctx: SshContext, target: string): Promise<EffectiveSsh | ConnectFailure> {
  const r = await runTool(ctx.local, ['ssh', ...configArgs(ctx), '-G', ...targetArgs(target)], ctx.env, CONNECT_TIMEOUT_MS);
  if (r.startError) return { kind: 'failed', message: `OpenSSH's ssh could not be run here: ${r.startError}` };
  const effective = r.code === 0 ? parseEffective(r.stdout) : null;
  if (!effective) return { kind: 'failed', message: `ssh could not read its configuration for ${target}: ${lastLines(r.stderr) || `exit ${r.code}`}` };
  return effective;
}

const READY = 'switchboard-ready';
/** Run by the user's shell on the host (any POSIX-like shell): what it has. */
const CHECK = `command -v node >/dev/null 2>&1 && echo node-ok; command -v git >/dev/null 2>&1 && echo git-ok; echo ${READY}`;

/**
 * One strict, non-interactive connection that runs the check. `acceptFingerprint`: the key the user accepted
 * for an unknown host (recorded by ssh's accept-new, then checked to be that one, else taken back out).
 */
export async function authenticate(ctx: SshContext, target: string, effective: EffectiveSsh, acceptFingerprint: string | null, signal?: AbortSignal): Promise<ConnectFailure | null> {
  const argv = [
    'ssh',
    ...configArgs(ctx),
    '-v',
    '-o', 'BatchMode=yes',
    '-o', `StrictHostKeyChecking=${acceptFingerprint ? 'accept-new' : 'yes'}`,
    '-o', `ConnectTimeout=${SSH_CONNECT_TIMEOUT_S}`,
    '-o', 'ControlMaster=no',
    '-o', 'ControlPath=none',
    '-T',
    ...targetArgs(target),
    CHECK,
  ];
  const r = await runTool(ctx.local, argv, ctx.env, CONNECT_TIMEOUT_MS, signal);
  const seen = serverKey(r.stderr);
  if (acceptFingerprint && seen && seen.fingerprint !== acceptFingerprint) {
    // accept-new recorded a key other than the one the user saw: it goes back out, and nothing is trusted.
    if (effective.knownHostsFile) await forgetKey(ctx, effective, expandHome(effective.knownHostsFile, ctx.env.HOME ?? ''));
    return {
      kind: 'host-key-changed',
      message: `${target} presented a different key (${seen.fingerprint}) than the one you accepted (${acceptFingerprint}); nothing was recorded.`,
      warning: '',
    };
  }
  if (r.code === 0 && r.stdout.includes(READY)) {
    if (!r.stdout.includes('node-ok')) return { kind: 'node-missing', message: `${target} has no \`node\` on the PATH of a non-interactive login: install Node.js there (18 or later).` };
    if (!r.stdout.includes('git-ok')) return { kind: 'git-missing', message: `${target} has no \`git\` on its PATH: install git there (checkpoints take their snapshots with it).` };
    return null;
  }
  return classify(target, effective, r, seen);
}

/** What a failed ssh run means, from OpenSSH's own messages. */
export function classify(target: string, effective: Pick<EffectiveSsh, 'hostname' | 'port'>, r: RunResult, seen: { keyType: string; fingerprint: string } | null): ConnectFailure {
  const where = `${effective.hostname}:${effective.port}`;
  if (r.startError) return { kind: 'failed', message: `OpenSSH's ssh could not be run here: ${r.startError}` };
  if (r.timedOut) return { kind: 'unreachable', message: `${target} (${where}) did not answer within ${CONNECT_TIMEOUT_MS / 1000} s.` };
  const text = messages(r.stderr);
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for \S+ has changed/i.test(text)) {
    return {
      kind: 'host-key-changed',
      message: `The host key of ${target} has changed since it was recorded in your known_hosts: Switchboard refuses to connect. If the change is expected, remove the old key (ssh-keygen -R) and connect again.`,
      warning: text.slice(0, 8000),
    };
  }
  if (/host key is known for|Host key verification failed|No matching host key/i.test(text) && seen) {
    return {
      kind: 'host-key-unknown',
      message: `${target} is not in your known_hosts. Its ${seen.keyType} key has the fingerprint ${seen.fingerprint}: accept it only if this is that host's key.`,
      fingerprint: seen.fingerprint,
      keyType: seen.keyType,
    };
  }
  if (/Permission denied|Too many authentication failures|Authentication failed|no more authentication methods/i.test(text)) {
    return { kind: 'auth-refused', message: `${target} refused the authentication (${lastLines(text, 1)}). Check the user and that ssh-agent or the configured identity holds a key the host accepts.` };
  }
  if (/Could not resolve hostname|Name or service not known|Connection refused|timed out|No route to host|Network is unreachable|Connection closed by|Connection reset|kex_exchange_identification|banner exchange/i.test(text)) {
    return { kind: 'unreachable', message: `${target} (${where}) cannot be reached: ${lastLines(text, 1)}` };
  }
  if (r.code === 255) return { kind: 'unreachable', message: `ssh could not connect to ${target}: ${lastLines(text, 2) || 'no reason given'}` };
  return { kind: 'failed', message: `${target}: the check on the host failed (exit ${r.code}): ${lastLines(text, 2) || 'no message'}` };
}

/** The key ssh saw (`-v`'s "Server host key: <type> <fingerprint>"), as `ssh-keygen -l` names it. */
export function serverKey(stderr: string): { keyType: string; fingerprint: string } | null {
  const m = /Server host key: (\S+) (\S+)/.exec(stderr);
  if (!m) return null;
  const type = m[1]!.replace(/^ssh-/, '').replace(/-cert-v01@openssh\.com$/, '');
  return { keyType: type.startsWith('ecdsa') ? 'ECDSA' : type.toUpperCase(), fingerprint: m[2]! };
}

/** OpenSSH's messages without `-v`'s debug lines, printable, bounded. */
function messages(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .filter((l) => !/^debug\d:/.test(l) && !/^(OpenSSH_|Transferred:|Bytes per second:)/.test(l) && l.trim() !== '')
    // eslint-disable-next-line no-control-regex
    .map((l) => l.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ''))
    .join('\n');
}

function lastLines(text: string, n = 2): string {
  return messages(text).split('\n').slice(-n).join(' ').slice(0, 500);
}

function expandHome(path: string, home: string): string {
  return path.startsWith('~/') && home ? `${home}${path.slice(1)}` : path;
}

async function forgetKey(ctx: SshContext, effective: EffectiveSsh, file: string): Promise<void> {
  const name = effective.port === 22 ? effective.hostname : `[${effective.hostname}]:${effective.port}`;
  await runTool(ctx.local, ['ssh-keygen', '-R', name, '-f', file], ctx.env, CONNECT_TIMEOUT_MS).catch(() => null);
}
