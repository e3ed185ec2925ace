import { spawn, type SpawnOptionsWithStdioTuple } from 'node:child_process';

/** Where and how to reach a host with the user's own `ssh` (their ~/.ssh/config applies unless `configFile` replaces it). */
export interface SshTarget {
  /** An alias from ssh_config, or [user@]host. */
  destination: string;
  port?: number;
  /** An ssh_config used instead of ~/.ssh/config (`ssh -F`). */
  configFile?: string;
  /** A known_hosts file used instead of the user's (`UserKnownHostsFile`). */
  knownHostsFile?: string;
  identityFile?: string;
  /** The ControlMaster's socket. */
  controlPath: string;
  /** Seconds a TCP connection may take (`ConnectTimeout`). */
  connectTimeoutS: number;
}

export interface SshRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Ended by the time limit. */
  timedOut: boolean;
}

export const SSH = process.env.SWITCHBOARD_SSH ?? 'ssh';

/** A destination as ssh takes it; one that could be read as an option, or holds a control character, is refused. */
export function checkDestination(destination: string): string {
  // eslint-disable-next-line no-control-regex
  if (destination === '' || destination.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(destination)) {
    throw new Error(`"${destination}" is not a host name or ssh alias`);
  }
  return destination;
}

/**
 * ssh's options for every step: never a prompt (BatchMode), a bounded connect, strict host key checking
 * against the user's known_hosts (or the given one), the one ControlMaster socket, keepalives so that a dead
 * network is noticed within ~15 s. `extra` comes before the destination; `command` after it.
 */
export function sshArgs(t: SshTarget, extra: readonly string[], command?: string): string[] {
  return [
    ...(t.configFile ? ['-F', t.configFile] : []),
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${t.connectTimeoutS}`,
    '-o', 'StrictHostKeyChecking=yes',
    '-o', `ControlPath=${t.controlPath.replace(/%/g, '%%')}`,
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    ...(t.knownHostsFile ? ['-o', `UserKnownHostsFile=${t.knownHostsFile}`] : []),
    ...(t.identityFile ? ['-i', t.identityFile] : []),
    ...(t.port ? ['-p', String(t.port)] : []),
    ...extra,
    '--',
    checkDestination(t.destination),
    ...(command !== undefined ? [command] : []),
  ];
}

/**
 * How every ssh is started: in a session of its own (no controlling terminal) and never with an askpass
 * program. BatchMode keeps ssh itself from prompting, but not the ssh it starts for a ProxyJump: given the
 * terminal Switchboard was started from, that one asks there (a host key, a password) and the connect waits
 * for an answer typed in a window no one looks at.
 */
export const sshSpawnOptions = (): SpawnOptionsWithStdioTuple<'pipe', 'pipe', 'pipe'> => ({
  stdio: ['pipe', 'pipe', 'pipe'],
  windowsHide: true,
  detached: true,
  env: { ...process.env, SSH_ASKPASS_REQUIRE: 'never' },
});

/**
 * Runs ssh to completion (or until `timeoutMs`: then SIGKILL). Settles on its exit, not on its pipes
 * closing: a ControlMaster that forks into the background may hold them.
 */
export function runSsh(args: readonly string[], options: { input?: string | Buffer; timeoutMs: number; command?: string }): Promise<SshRun> {
  return new Promise((resolve) => {
    const child = spawn(options.command ?? SSH, args, sshSpawnOptions());
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 64 * 1024) err += b.toString('utf8');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    const finish = (code: number | null): void => {
      clearTimeout(timer);
      // What is still in the pipes arrives within a moment; a forked master's copies are let go.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
      }, 30);
    };
    child.on('error', (e) => {
      err += e.message;
      finish(null);
    });
    child.on('exit', (code) => finish(code));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Single-quoted for a POSIX shell (and fish, and csh). */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export type SshFailureReason = 'unreachable' | 'auth' | 'host_key_unknown' | 'host_key_changed' | 'node_missing' | 'git_missing' | 'helper' | 'config';

/** What ssh's own words say went wrong; null when they say nothing known. */
export function classifySshError(stderr: string): SshFailureReason | null {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|host key for .* has changed|POSSIBLE DNS SPOOFING/i.test(stderr)) return 'host_key_changed';
  if (/No \S+ host key is known for|Host key verification failed/i.test(stderr)) return 'host_key_unknown';
  if (/Permission denied|Too many authentication failures|Authentication failed|no more authentication methods/i.test(stderr)) return 'auth';
  if (/Could not resolve hostname|Connection refused|timed out|No route to host|Network is unreachable|Connection closed by|Connection reset|kex_exchange_identification|Name or service not known/i.test(stderr)) return 'unreachable';
  if (/Bad configuration option|Can't open user config file|Bad owner or permissions|terminating, \d+ bad configuration options/i.test(stderr)) return 'config';
  return null;
}

/** ssh's message as a line for a sentence: its last meaningful line, without "ssh: " noise. */
export function sshSays(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^Warning: Permanently added/.test(l));
  return (lines.at(-1) ?? 'ssh ended without saying why').replace(/^ssh: /, '');
}
