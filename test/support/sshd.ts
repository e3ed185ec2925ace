/**
 * A real OpenSSH server for the SSH host tests: Debian's /usr/sbin/sshd on 127.0.0.1 on a free port, with its
 * own host key, its own sshd_config, and a test user (`sbremote`, its own home) whose authorized key is made
 * for the test. The client side gets its own ssh_config and known_hosts in a temp folder: the real ~/.ssh
 * is never read or touched.
 *
 *   const sshd = await startSshd();          // null (with `skipReason`) where it cannot run here
 *   sshd.configFile, sshd.knownHostsFile, sshd.alias ('sbtest'), sshd.port, sshd.user, sshd.home
 *   await sshd.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';
export const REMOTE_USER = 'sbremote';

export interface Sshd {
  port: number;
  /** The Host alias in `configFile`. */
  alias: string;
  /**
   * Aliases of the same server on a second port where sessions get a bare PATH: `sbnogit` (sh, coreutils and
   * node, no git) and `sbnonode` (no node either).
   */
  noGitAlias: string;
  noNodeAlias: string;
  /** `sbnoengine`: sh, coreutils, node and git, but no container engine (neither podman nor docker). */
  noEngineAlias: string;
  user: string;
  home: string;
  dir: string;
  configFile: string;
  knownHostsFile: string;
  /** The client's authorized key pair. */
  identityFile: string;
  /** The server's public host key (`ssh-keygen -lf` of it gives the fingerprint the user must see). */
  hostKeyPub: string;
  /** A second key pair the server does not accept. */
  strangerIdentityFile: string;
  /** Writes known_hosts with the server's key (`right`), another key (`wrong`), or nothing (`empty`). */
  setKnownHosts(which: 'right' | 'wrong' | 'empty'): Promise<void>;
  /** An ssh_config for the same server with other settings (another identity, port…). */
  writeConfig(name: string, lines: string[]): Promise<string>;
  /** Stops accepting connections (sessions already open go on): the host turns unreachable. */
  stopListening(): Promise<void>;
  stop(): Promise<void>;
}

/** Why an sshd cannot be started here (null: it can). */
export function sshdSkipReason(): string | null {
  if (process.platform !== 'linux') return 'the sshd tests run on Linux';
  if (!existsSync(SSHD)) return `${SSHD} is not installed (apt-get install openssh-server)`;
  if (spawnSync('id', ['-u', REMOTE_USER]).status === 0) return null;
  if (process.getuid?.() !== 0) return `the test user "${REMOTE_USER}" does not exist and creating it needs root`;
  return null;
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

/** The test user, made once (idempotent: a parallel maker may win the race). */
function ensureUser(): string {
  if (spawnSync('id', ['-u', REMOTE_USER]).status !== 0) {
    const r = spawnSync('useradd', ['-m', '-s', '/bin/sh', REMOTE_USER], { encoding: 'utf8' });
    if (r.status !== 0 && spawnSync('id', ['-u', REMOTE_USER]).status !== 0) throw new Error(`useradd failed: ${r.stderr}`);
  }
  // No password, but not locked: sshd (without PAM) refuses a locked account even for keys.
  if (process.getuid?.() === 0) spawnSync('usermod', ['-p', '*', REMOTE_USER]);
  return run('getent', ['passwd', REMOTE_USER]).split(':')[5]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

export async function startSshd(): Promise<Sshd> {
  const home = ensureUser();
  // The privilege separation folder sshd insists on.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // Short: the ControlMaster's socket lives under it too.
  const dir = await mkdtemp(join(tmpdir(), 'sbssh-'));
  await chmod(dir, 0o755);
  const keygen = (file: string) => run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'switchboard-test', '-f', file]);
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'host_key_other'));
  keygen(join(dir, 'id'));
  keygen(join(dir, 'id_stranger'));
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'id.pub')), { mode: 0o644 });
  // Bare PATHs for the "missing on the host" tests: what the helper's steps need, and nothing else.
  const bare = (name: string, tools: string[]): string => {
    const bin = join(dir, name);
    mkdirSync(bin, { mode: 0o755 });
    for (const t of tools) {
      const found = spawnSync('sh', ['-c', `command -v ${t}`], { encoding: 'utf8' }).stdout.trim();
      if (found) symlinkSync(found, join(bin, t));
    }
    return bin;
  };
  const basics = ['sh', 'cat', 'mkdir', 'mv', 'rm', 'chmod', 'id', 'sleep', 'env'];
  const noGitBin = bare('bin-nogit', [...basics, 'node']);
  const noNodeBin = bare('bin-nonode', basics);
  const noEngineBin = bare('bin-noengine', [...basics, 'node', 'git', 'dirname', 'touch', 'ls']);
  const sshdConfig = join(dir, 'sshd_config');
  // Ports are free when chosen, but another worker's sshd may take one before this one binds it: then a test
  // would reach that other sshd (another user's PATH…). So each port must be this sshd's own, said in its log;
  // if one is not, it starts again on new ports.
  let port = 0;
  let noGitPort = 0;
  let noNodePort = 0;
  let noEnginePort = 0;
  let sshd: ChildProcess;
  let log = '';
  let exited = false;
  for (let attempt = 1; ; attempt++) {
    [port, noGitPort, noNodePort, noEnginePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    await writeFile(
      sshdConfig,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host_key')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        `AllowUsers ${REMOTE_USER}`,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        // The temp folder is under world-writable /tmp, which StrictModes would refuse.
        'StrictModes no',
        'MaxSessions 100',
        'MaxStartups 100',
        'LogLevel VERBOSE',
        'PrintMotd no',
        `Port ${noGitPort}`,
        `Port ${noNodePort}`,
        `Port ${noEnginePort}`,
        `Match LocalPort ${noGitPort}`,
        `  SetEnv PATH=${noGitBin}`,
        `Match LocalPort ${noNodePort}`,
        `  SetEnv PATH=${noNodeBin}`,
        `Match LocalPort ${noEnginePort}`,
        `  SetEnv PATH=${noEngineBin}`,
        '',
      ].join('\n'),
    );
    const started: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd = started;
    log = '';
    exited = false;
    started.stderr!.on('data', (b: Buffer) => {
      if (log.length < 256 * 1024) log += b.toString('utf8');
    });
    started.on('exit', () => (exited = true));
    const ports = [port, noGitPort, noNodePort, noEnginePort];
    const own = (p: number) => log.includes(`Server listening on 127.0.0.1 port ${p}.`);
    const bindFailed = () => /Bind to port \d+ on 127\.0\.0\.1 failed|Cannot bind any address/.test(log);
    for (let i = 0; !ports.every(own) && !bindFailed() && !exited; i++) {
      if (i > 400) throw new Error(`sshd did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    if (ports.every(own) && !exited) break;
    if (!exited) {
      started.kill('SIGTERM');
      await new Promise((r) => started.once('exit', r));
    }
    if (attempt >= 5) throw new Error(`sshd could not bind its ports: ${log}`);
  }
  for (let i = 0; !(await listening(port)); i++) {
    if (exited || i > 200) throw new Error(`sshd did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 25));
  }

  const stopListening = async (): Promise<void> => {
    if (exited) return;
    sshd.kill('SIGTERM');
    await new Promise((r) => sshd.once('exit', r));
  };
  const alias = 'sbtest';
  const knownHostsFile = join(dir, 'known_hosts');
  const writeConfig = async (name: string, lines: string[]): Promise<string> => {
    const file = join(dir, name);
    await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    return file;
  };
  const hostBlock = (name: string, p: number): string[] => [
    `Host ${name}`,
    '  HostName 127.0.0.1',
    `  Port ${p}`,
    `  User ${REMOTE_USER}`,
    `  IdentityFile ${join(dir, 'id')}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${knownHostsFile}`,
    '  GlobalKnownHostsFile /dev/null',
    '  IdentityAgent none',
  ];
  const configFile = await writeConfig('ssh_config', [...hostBlock(alias, port), ...hostBlock('sbnogit', noGitPort), ...hostBlock('sbnonode', noNodePort), ...hostBlock('sbnoengine', noEnginePort)]);
  const hostKeyPub = join(dir, 'host_key.pub');
  const setKnownHosts = async (which: 'right' | 'wrong' | 'empty'): Promise<void> => {
    if (which === 'empty') return writeFile(knownHostsFile, '', { mode: 0o600 });
    const pub = (await readFile(join(dir, which === 'right' ? 'host_key.pub' : 'host_key_other.pub'), 'utf8')).trim().split(' ');
    const lines = [port, noGitPort, noNodePort, noEnginePort].map((p) => `[127.0.0.1]:${p} ${pub[0]} ${pub[1]}\n`);
    await writeFile(knownHostsFile, lines.join(''), { mode: 0o600 });
  };
  await setKnownHosts('right');
  return {
    port,
    alias,
    noGitAlias: 'sbnogit',
    noNodeAlias: 'sbnonode',
    noEngineAlias: 'sbnoengine',
    user: REMOTE_USER,
    home,
    dir,
    configFile,
    knownHostsFile,
    identityFile: join(dir, 'id'),
    strangerIdentityFile: join(dir, 'id_stranger'),
    hostKeyPub,
    setKnownHosts,
    writeConfig,
    stopListening,
    stop: async () => {
      await stopListening();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
